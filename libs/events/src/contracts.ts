/**
 * The static types of the events lib's procedure answers (`webhooks.*`), for code that calls the
 * procedures by name (the console over /rpc): the types of the TypeBox schemas the procedures
 * declare, so each shape is written once. Types only: nothing here runs, its imports are
 * `import type` (lint), and the schema files it reads import only TypeBox.
 */
export type { EventTypeInfo, EventTypeList } from './catalog/event-type-view';
export type { DeliveryAttemptView, DeliveryDetail, DeliveryPage, DeliveryStatus, DeliveryView } from './webhooks/deliveries/delivery-view';
export type { EndpointList, EndpointView, EndpointWithSecret, Ordering, Signing } from './webhooks/endpoints/endpoint-view';
