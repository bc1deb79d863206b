/**
 * The static types of the events lib's procedure inputs and answers (`webhooks.*`), for code that calls the
 * procedures by name (the console over /rpc): the types of the TypeBox schemas the procedures
 * declare, so each shape is written once. Types only: nothing here runs, its imports are
 * `import type` (lint), and the schema files it reads import only TypeBox.
 */
import type { Static } from '@sinclair/typebox';
import type * as EventTypeInputs from './catalog/event-type-inputs';
import type * as EventTypeViews from './catalog/event-type-view';
import type * as DeliveryInputs from './webhooks/deliveries/delivery-inputs';
import type * as DeliveryViews from './webhooks/deliveries/delivery-view';
import type * as EndpointInputs from './webhooks/endpoints/endpoint-inputs';
import type * as EndpointViews from './webhooks/endpoints/endpoint-view';

export type { EventTypeInfo, EventTypeList } from './catalog/event-type-view';
export type { DeliveryAttemptView, DeliveryDetail, DeliveryPage, DeliveryStatus, DeliveryView } from './webhooks/deliveries/delivery-view';
export type { EndpointList, EndpointView, EndpointWithSecret, Ordering, Signing } from './webhooks/endpoints/endpoint-view';

/**
 * What each `webhooks.*` procedure a door serves takes and answers, by name: the static types of
 * the input and output schemas it declares (`procedures.spec.ts` fails when they drift). A caller
 * by name (the console's `call`) gets both from the name alone.
 */
export interface EventsProcedures {
  'webhooks.eventTypes.list': { input: Static<typeof EventTypeInputs.EventTypesListInput>; output: Static<typeof EventTypeViews.EventTypeListSchema> };
  'webhooks.endpoints.list': { input: Static<typeof EndpointInputs.EndpointsListInput>; output: Static<typeof EndpointViews.EndpointListSchema> };
  'webhooks.endpoints.create': { input: Static<typeof EndpointInputs.EndpointsCreateInput>; output: Static<typeof EndpointViews.EndpointWithSecretSchema> };
  'webhooks.endpoints.update': { input: Static<typeof EndpointInputs.EndpointsUpdateInput>; output: Static<typeof EndpointViews.EndpointViewSchema> };
  'webhooks.endpoints.delete': { input: Static<typeof EndpointInputs.EndpointByIdInput>; output: Static<typeof EndpointViews.DeletedEndpointSchema> };
  'webhooks.endpoints.rotateSecret': { input: Static<typeof EndpointInputs.EndpointsRotateSecretInput>; output: Static<typeof EndpointViews.EndpointWithSecretSchema> };
  'webhooks.endpoints.enable': { input: Static<typeof EndpointInputs.EndpointByIdInput>; output: Static<typeof EndpointViews.EndpointViewSchema> };
  'webhooks.endpoints.disable': { input: Static<typeof EndpointInputs.EndpointsDisableInput>; output: Static<typeof EndpointViews.EndpointViewSchema> };
  'webhooks.endpoints.recover': { input: Static<typeof DeliveryInputs.EndpointsRecoverInput>; output: Static<typeof DeliveryViews.RecoveredDeliveriesSchema> };
  'webhooks.deliveries.list': { input: Static<typeof DeliveryInputs.DeliveriesListInput>; output: Static<typeof DeliveryViews.DeliveryPageSchema> };
  'webhooks.deliveries.get': { input: Static<typeof DeliveryInputs.DeliveryByIdInput>; output: Static<typeof DeliveryViews.DeliveryDetailSchema> };
  'webhooks.deliveries.redeliver': { input: Static<typeof DeliveryInputs.DeliveryByIdInput>; output: Static<typeof DeliveryViews.DeliveryViewSchema> };
}
