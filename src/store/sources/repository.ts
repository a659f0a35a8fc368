// The runs and export repositories (the sources themselves are sources.ts's Sources): sync runs with
// their checkpoints, and export destinations with the state of their scheduled exports.
import { bindDriver } from '../db/bind.ts';
import type { Driver } from '../db/driver.ts';
import * as exportSchedules from './export-schedules.ts';
import * as runs from './runs.ts';

export const runsRepository = (db: Driver) =>
  bindDriver(db, {
    create: runs.createRun,
    get: runs.getRun,
    /** Runs newest first: of one source (null: all), with one of the given statuses when any are given. */
    list: runs.listRuns,
    active: runs.activeRun,
    last: runs.lastRun,
    heartbeat: runs.heartbeat,
    finish: runs.finishRun,
    checkpoints: runs.getCheckpoints,
  });

export const exportsRepository = (db: Driver) =>
  bindDriver(db, {
    createDestination: exportSchedules.createDestination,
    getDestination: exportSchedules.getDestination,
    listDestinations: exportSchedules.listDestinations,
    deleteDestination: exportSchedules.deleteDestination,
    getStatus: exportSchedules.getExportStatus,
    listStatuses: exportSchedules.listExportStatuses,
    putStatus: exportSchedules.putExportStatus,
  });

export type RunsRepository = ReturnType<typeof runsRepository>;
export type ExportsRepository = ReturnType<typeof exportsRepository>;
