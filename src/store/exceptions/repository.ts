// The exceptions repository: risk exceptions proposed, decided and listed, each with its history
// (exceptions.ts). What they take out of counts is exceptions.ts exceptedFindingsClause, used by the
// records and reports aggregates.
import { bindDriver } from '../db/bind.ts';
import type { Driver } from '../db/driver.ts';
import { decideException, getException, listExceptions, proposeException } from './exceptions.ts';

export const exceptionsRepository = (db: Driver) =>
  bindDriver(db, {
    propose: proposeException,
    decide: decideException,
    get: getException,
    list: listExceptions,
  });

export type ExceptionsRepository = ReturnType<typeof exceptionsRepository>;
