// Alerts over HTTP (issue 31 §4): GET /api/v1/alerts (rules with their last delivery; read),
// POST /api/v1/alerts (add; answers the signing secret once; admin), DELETE /api/v1/alerts/:name
// (admin), POST /api/v1/alerts/:name/test (send a test message now; admin) and
// GET /api/v1/alerts/deliveries (the delivery log; read). No answer holds a rule's URL path or secret.
import type { FastifyInstance } from 'fastify';
import { addAlert, alertView, deliveryView, describeAlerts, removeAlert, testAlert } from '../../alerts/index.ts';
import type { AppContext } from '../../app/context.ts';
import { alertBody, alertCreated, alertDelivery, alertDeliveryList, alertList, alertRemoved, deliveriesQuery } from '../../core/api-shapes-alerts.ts';
import { nameParams } from '../../core/api-shapes.ts';
import { actorOf } from '../auth.ts';
import { errorSchema } from '../errors.ts';
import { routeSchema, type ShapesProvider } from '../schema.ts';

export function alertRoutes(app: AppContext) {
  return async (instance: FastifyInstance): Promise<void> => {
    const f = instance.withTypeProvider<ShapesProvider>();
    f.get(
      '/api/v1/alerts',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['alerts'],
          summary: 'Alert rules (webhooks) with their last delivery; never their URL path or secret',
          response: { 200: routeSchema(alertList) },
        },
      },
      async () => ({ items: (await describeAlerts(app)).map(alertView) }),
    );

    f.post(
      '/api/v1/alerts',
      {
        config: { scope: 'admin' },
        schema: {
          tags: ['alerts'],
          summary:
            'Add an alert rule: a webhook told of open findings newly known exploited (kev), newly in the SSVC decision Act (act), newly past due (sla), failed or partial syncs (sync) and coverage that got worse (coverage); answers the signing secret once',
          body: routeSchema(alertBody),
          response: { 201: routeSchema(alertCreated), 400: errorSchema, 409: errorSchema },
        },
      },
      async (req, reply) => {
        const b = req.body;
        const { alert, secret } = await addAlert(app, {
          name: b.name,
          url: b.url,
          kinds: b.on,
          format: b.format,
          secret: b.secret,
          maxItems: b.maxItems,
          createdBy: actorOf(req.auth),
        });
        req.log.info({ alert: alert.name, on: alert.kinds }, 'alert added');
        return reply.code(201).send({ alert: alertView(alert), secret });
      },
    );

    f.get(
      '/api/v1/alerts/deliveries',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['alerts'],
          summary: 'The delivery log, newest first: status, attempts, last HTTP status and error, times',
          querystring: routeSchema(deliveriesQuery),
          response: { 200: routeSchema(alertDeliveryList), 400: errorSchema },
        },
      },
      async (req) => ({
        items: (await app.store.alerts.deliveries({ rule: req.query.alert, status: req.query.status, limit: req.query.limit })).map(deliveryView),
      }),
    );

    f.delete(
      '/api/v1/alerts/:name',
      {
        config: { scope: 'admin' },
        schema: {
          tags: ['alerts'],
          summary: 'Remove an alert rule (its delivery log stays)',
          params: routeSchema(nameParams),
          response: { 200: routeSchema(alertRemoved), 404: errorSchema },
        },
      },
      async (req) => {
        await removeAlert(app, req.params.name);
        req.log.info({ alert: req.params.name }, 'alert removed');
        return { removed: req.params.name };
      },
    );

    f.post(
      '/api/v1/alerts/:name/test',
      {
        config: { scope: 'admin' },
        schema: {
          tags: ['alerts'],
          summary: 'Send a test message of the rule now (one attempt, logged); answers the delivery',
          params: routeSchema(nameParams),
          response: { 200: routeSchema(alertDelivery), 404: errorSchema },
        },
      },
      async (req) => deliveryView(await testAlert(app, req.params.name)),
    );
  };
}
