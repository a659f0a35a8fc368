// The API's routes the web client calls, by method and path, each with the zod shapes of its path
// parameters, query, body and answer (the ones the server's routes validate and document with), so the
// client's calls are typed from the same declarations. Only zod and core here: the browser imports
// this file for its types alone. test/server/api-routes.test.ts checks each entry against the server.
import { z } from 'zod';
import { ticketApplyShape, ticketLogShape, ticketPlanShape } from './api-shapes-tickets.ts';
import { alertBody, alertCreated, alertDelivery, alertDeliveryList, alertList, alertRemoved, deliveriesQuery } from './api-shapes-alerts.ts';
import {
  changesQuery,
  complianceQuery,
  coverageQuery,
  cveQuery,
  destinationBody,
  exportRunBody,
  exportsQuery,
  fileDropBody,
  groupQuery,
  hostIdsQuery,
  modelParams,
  pluginQuery,
  recordQuery,
  remediationQuery,
  remediationsQuery,
  remediationHostsQuery,
  decisionCountsQuery,
  ticketLogQuery,
  trendsQuery,
} from './api-requests.ts';
import {
  apiTokenCreated,
  apiTokenList,
  bucketListing,
  connectorList,
  cveFactsList,
  exportDestination,
  exportDestinationList,
  exportFormatList,
  exportRemoved,
  exportStatusList,
  feedList,
  fileDropGuide,
  idParams,
  loginBody,
  nameParams,
  type ModelRecord,
  type Page,
  page,
  recordItem,
  recordShapes,
  run,
  runList,
  runsQuery,
  savedView,
  savedViewBody,
  savedViewList,
  savedViewsQuery,
  sessionInfo,
  sourceChangeBody,
  sourceCheck,
  sourceCheckBody,
  sourceCreateBody,
  sourceList,
  sourceRemoved,
  sourceRunsQuery,
  sourceTrialBody,
  sourceView,
  syncBody,
  syncStarted,
  tokenCreateBody,
  uploadTokenList,
} from './api-shapes.ts';
import {
  assetLinkBody,
  assetLinked,
  assetLinkedTyped,
  assetRecords,
  assetRecordsTyped,
  changePage,
  complianceSummary,
  coverageAnswer,
  groupCounts,
  hostFindingCountsList,
  hostLabels,
  pluginSummary,
  recordCount,
  recordStats,
  decisionCounts,
  remediationHosts,
  remediationReport,
  remediationsReport,
  topFixesReport,
  trendsReport,
} from './api-shapes-reports.ts';
import { exceptionDecision, exceptionListQuery, exceptionPolicy, exceptionProposal, riskExceptionDetail, riskExceptionList } from './api-shapes-exceptions.ts';
import { MODEL_NAMES, type ModelName } from './models.ts';

/** What a route takes and answers; a part it does not take is left out. */
export interface RouteShapes {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  response: z.ZodType;
  /** The answer with its records typed by model, where `response` (the route's schema) has any model's: the client's type. */
  typed?: z.ZodType;
  /** A route of every model (`:model`): its answer for each model, where `response` is any model's. */
  byModel?: { [M in ModelName]: z.ZodType };
}

const none = z.null();
const recordPages = Object.fromEntries(MODEL_NAMES.map((m) => [m, page(recordShapes[m])])) as unknown as {
  [M in ModelName]: z.ZodType<Page<ModelRecord<M>>>;
};
const modelIdParams = modelParams.extend({ id: z.string() });
const tokenParams = nameParams.extend({ id: z.string() });

export const apiRoutes = {
  'GET /api/v1/auth/session': { response: sessionInfo },
  'POST /api/v1/auth/login': { body: loginBody, response: sessionInfo },
  'POST /api/v1/auth/logout': { response: none },
  'GET /api/v1/tokens': { response: apiTokenList },
  'POST /api/v1/tokens': { body: tokenCreateBody, response: apiTokenCreated },
  'DELETE /api/v1/tokens/:id': { params: idParams, response: none },

  'GET /api/v1/connectors': { response: connectorList },
  'GET /api/v1/sources': { response: sourceList },
  'POST /api/v1/sources': { body: sourceCreateBody, response: sourceView },
  'POST /api/v1/sources/check': { body: sourceTrialBody, response: sourceCheck },
  'GET /api/v1/sources/:name': { params: nameParams, response: sourceView },
  'PATCH /api/v1/sources/:name': { params: nameParams, body: sourceChangeBody, response: sourceView },
  'DELETE /api/v1/sources/:name': { params: nameParams, response: sourceRemoved },
  'POST /api/v1/sources/:name/check': { params: nameParams, body: sourceCheckBody.optional(), response: sourceCheck },
  'POST /api/v1/sources/:name/sync': { params: nameParams, body: syncBody, response: syncStarted },
  'GET /api/v1/sources/:name/runs': { params: nameParams, query: sourceRunsQuery, response: runList },
  'GET /api/v1/sources/:name/tickets/plan': { params: nameParams, response: ticketPlanShape },
  'POST /api/v1/sources/:name/tickets/apply': { params: nameParams, response: ticketApplyShape },
  'GET /api/v1/sources/:name/tickets/log': { params: nameParams, query: ticketLogQuery, response: ticketLogShape },
  'GET /api/v1/sources/:name/files': { params: nameParams, response: bucketListing },
  'POST /api/v1/sources/:name/file-drop': { params: nameParams, body: fileDropBody, response: fileDropGuide },
  'GET /api/v1/sources/:name/file-drop/tokens': { params: nameParams, response: uploadTokenList },
  'DELETE /api/v1/sources/:name/file-drop/tokens/:id': { params: tokenParams, response: none },

  'GET /api/v1/runs': { query: runsQuery, response: runList },
  'GET /api/v1/runs/:id': { params: idParams, response: run },

  'GET /api/v1/stats': { response: recordStats },
  'GET /api/v1/:model': { params: modelParams, query: recordQuery, response: page(recordItem), byModel: recordPages },
  'GET /api/v1/:model/count': { params: modelParams, query: recordQuery, response: recordCount },
  'GET /api/v1/:model/counts': { params: modelParams, query: groupQuery, response: groupCounts },
  'GET /api/v1/:model/:id': { params: modelIdParams, response: recordItem, byModel: recordShapes },
  'GET /api/v1/hosts/labels': { query: hostIdsQuery, response: hostLabels },
  'GET /api/v1/hosts/finding-counts': { query: hostIdsQuery, response: hostFindingCountsList },
  'GET /api/v1/compliance/summary': { query: complianceQuery, response: complianceSummary },
  'GET /api/v1/vulnerabilities/plugins': { query: pluginQuery, response: pluginSummary },

  'GET /api/v1/changes': { query: changesQuery, response: changePage },
  'GET /api/v1/reports/trends': { query: trendsQuery, response: trendsReport },
  'GET /api/v1/reports/remediation': { query: remediationQuery, response: remediationReport },
  'GET /api/v1/reports/remediations': { query: remediationsQuery, response: remediationsReport },
  'GET /api/v1/reports/top-fixes': { query: remediationsQuery, response: topFixesReport },
  'GET /api/v1/reports/remediations/hosts': { query: remediationHostsQuery, response: remediationHosts },
  'GET /api/v1/reports/decisions': { query: decisionCountsQuery, response: decisionCounts },
  'GET /api/v1/reports/coverage': { query: coverageQuery, response: coverageAnswer },
  'GET /api/v1/assets/:id/records': { params: idParams, response: assetRecords, typed: assetRecordsTyped },
  'POST /api/v1/assets/:id/link': { params: idParams, body: assetLinkBody, response: assetLinked, typed: assetLinkedTyped },
  'DELETE /api/v1/assets/:id/link': { params: idParams, body: assetLinkBody, response: assetLinked, typed: assetLinkedTyped },

  'GET /api/v1/export/formats': { response: exportFormatList },
  'GET /api/v1/exports': { query: exportsQuery, response: exportDestinationList },
  'POST /api/v1/exports': { body: destinationBody, response: exportDestination },
  'DELETE /api/v1/exports/:name': { params: nameParams, response: exportRemoved },
  'POST /api/v1/exports/:name/run': { params: nameParams, body: exportRunBody.optional(), response: exportStatusList },

  'GET /api/v1/views': { query: savedViewsQuery, response: savedViewList },
  'POST /api/v1/views': { body: savedViewBody, response: savedView },
  'DELETE /api/v1/views/:id': { params: idParams, response: none },

  'GET /api/v1/feeds': { response: feedList },
  'GET /api/v1/feeds/cves': { query: cveQuery, response: cveFactsList },

  'GET /api/v1/exceptions': { query: exceptionListQuery, response: riskExceptionList },
  'GET /api/v1/exceptions/policy': { response: exceptionPolicy },
  'GET /api/v1/exceptions/:id': { params: idParams, response: riskExceptionDetail },
  'POST /api/v1/exceptions': { body: exceptionProposal, response: riskExceptionDetail },
  'POST /api/v1/exceptions/:id/approve': { params: idParams, body: exceptionDecision.optional(), response: riskExceptionDetail },
  'POST /api/v1/exceptions/:id/reject': { params: idParams, body: exceptionDecision.optional(), response: riskExceptionDetail },
  'POST /api/v1/exceptions/:id/revoke': { params: idParams, body: exceptionDecision.optional(), response: riskExceptionDetail },
  'GET /api/v1/alerts': { response: alertList },
  'POST /api/v1/alerts': { body: alertBody, response: alertCreated },
  'DELETE /api/v1/alerts/:name': { params: nameParams, response: alertRemoved },
  'POST /api/v1/alerts/:name/test': { params: nameParams, response: alertDelivery },
  'GET /api/v1/alerts/deliveries': { query: deliveriesQuery, response: alertDeliveryList },
} as const satisfies Record<string, RouteShapes>;

export type ApiRoutes = typeof apiRoutes;
export type RouteKey = keyof ApiRoutes;
