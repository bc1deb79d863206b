import { Type, type Static } from '@sinclair/typebox';

export const TRIGGER_TYPES = ['http', 'schedule', 'event'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];
export const ACTION_TYPES = ['create-record', 'update-record', 'notify'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];
export const RUN_STATUSES = ['queued', 'succeeded', 'failed', 'skipped'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const RUN_TRIGGERS = ['http', 'schedule', 'event', 'manual'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

export const MAX_ACTIONS = 10;
export const DEFAULT_MAX_RUNS_PER_MINUTE = 60;
export const MAX_RUNS_PER_MINUTE = 6000;

const stringEnum = <T extends string>(values: readonly T[], description: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], description });

const JsonObject = (description: string) => Type.Object({}, { additionalProperties: true, description });

/**
 * The edge checks shapes only; which properties each trigger and action type needs, and whether
 * cron expressions, zones, event types and templates mean anything, is `checkDefinition`'s job,
 * so every problem is reported with its path at once.
 */
export const TriggerInput = Type.Object(
  {
    type: stringEnum(TRIGGER_TYPES, 'http: POST /hooks/automation/{id} with the secret; schedule: cron + timezone; event: eventType'),
    cron: Type.Optional(Type.String({ minLength: 1, maxLength: 120, description: 'schedule: 5-field cron expression, e.g. "0 9 * * 1-5"' })),
    timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'schedule: IANA time zone, e.g. Europe/Paris' })),
    eventType: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'event: an event type, a per-model record type, prefix.* or *' }),
    ),
    includeOwnRuns: Type.Optional(Type.Boolean({ description: 'event: also trigger on events this automation\'s own runs caused (default false)' })),
  },
  { additionalProperties: false },
);

export const ActionInput = Type.Object(
  {
    type: stringEnum(ACTION_TYPES, 'create-record, update-record or notify'),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 63, description: 'create-record, update-record: the model key' })),
    data: Type.Optional(JsonObject('create-record, update-record: values keyed by field key; strings may hold templates')),
    recordId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'update-record: the record id, or a template of it' })),
    filter: Type.Optional(JsonObject('update-record: a filter tree that must match exactly one record; leaf values may hold templates')),
    userIds: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 100, uniqueItems: true, description: 'notify: members to notify' }),
    ),
    role: Type.Optional(Type.String({ minLength: 1, maxLength: 63, description: 'notify: notify every member holding this role (by key)' })),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'notify: the message title; may hold templates' })),
    body: Type.Optional(Type.String({ maxLength: 5000, description: 'notify: the message text; may hold templates' })),
  },
  { additionalProperties: false },
);

export const ActionsInput = Type.Array(ActionInput, { minItems: 1, maxItems: MAX_ACTIONS, description: 'Run in order; all or nothing' });

export type TriggerInputValue = Static<typeof TriggerInput>;
export type ActionInputValue = Static<typeof ActionInput>;

export type AutomationTrigger =
  | { type: 'http' }
  | { type: 'schedule'; cron: string; timezone: string }
  | { type: 'event'; eventType: string; includeOwnRuns: boolean };

export type AutomationAction =
  | { type: 'create-record'; model: string; data: Record<string, unknown> }
  | { type: 'update-record'; model: string; recordId?: string; filter?: Record<string, unknown>; data: Record<string, unknown> }
  | { type: 'notify'; userIds?: string[]; role?: string; title: string; body?: string };

const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const AutomationViewSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  enabled: Type.Boolean(),
  ownerId: Type.String({ description: 'The principal the runs act as' }),
  trigger: Type.Object({
    type: stringEnum(TRIGGER_TYPES, 'The trigger type'),
    cron: Type.Optional(Type.String()),
    timezone: Type.Optional(Type.String()),
    nextRunAt: Type.Optional(Nullable(Timestamp)),
    eventType: Type.Optional(Type.String()),
    includeOwnRuns: Type.Optional(Type.Boolean()),
    secretPrefix: Type.Optional(Type.String({ description: 'http: the first characters of the hook secret' })),
  }),
  actions: Type.Array(ActionInput),
  maxRunsPerMinute: Type.Integer(),
  createdBy: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type AutomationView = Static<typeof AutomationViewSchema>;

/** `automations.create`, `automations.update` and `automations.rotateSecret`: an http trigger's secret is shown once. */
export const AutomationWithSecretSchema = Type.Composite([
  AutomationViewSchema,
  Type.Object({ secret: Type.Optional(Type.String({ description: 'http trigger: the hook secret, shown this once' })) }),
]);
export type AutomationWithSecret = Static<typeof AutomationWithSecretSchema>;

/** `automations.list` */
export const AutomationPageSchema = Type.Object({ items: Type.Array(AutomationViewSchema), nextCursor: Type.Union([Type.String(), Type.Null()]) });
export type AutomationPage = Static<typeof AutomationPageSchema>;

export const ActionResultSchema = Type.Object({
  type: stringEnum(ACTION_TYPES, 'The action type'),
  status: stringEnum(['succeeded', 'failed', 'rolled-back', 'not-run'] as const, 'rolled-back: it succeeded, then a later action failed'),
  recordId: Type.Optional(Type.String()),
  notified: Type.Optional(Type.Integer()),
  error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String(), details: Type.Optional(Type.Array(Type.Unknown())) })),
});
export type ActionResult = Static<typeof ActionResultSchema>;

export const RunViewSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  automationId: Type.String({ format: 'uuid' }),
  trigger: stringEnum(RUN_TRIGGERS, 'What started the run'),
  status: stringEnum(RUN_STATUSES, 'queued, succeeded, failed or skipped'),
  input: Type.Unknown({ description: "The hook's body, the manual input or the schedule slot" }),
  eventId: Type.Union([Type.String(), Type.Null()]),
  eventType: Type.Union([Type.String(), Type.Null()]),
  chainDepth: Type.Integer({ description: 'How many automation runs in a row led to this one, itself included' }),
  triggeredBy: Type.Union([Type.String(), Type.Null()]),
  queuedAt: Timestamp,
  startedAt: Nullable(Timestamp),
  finishedAt: Nullable(Timestamp),
  error: Type.Union([Type.String(), Type.Null()]),
  actions: Type.Array(ActionResultSchema),
  skippedRuns: Type.Optional(
    Type.Integer({ description: 'A skipped row standing for the runs over a bound (rate, runs per chain, queued runs) in one minute: how many it counts' }),
  ),
});
export type RunView = Static<typeof RunViewSchema>;

/** `automations.runs.list` */
export const RunPageSchema = Type.Object({ items: Type.Array(RunViewSchema), nextCursor: Type.Union([Type.String(), Type.Null()]) });
export type RunPage = Static<typeof RunPageSchema>;

/** `automations.delete` */
export const DeletedAutomationSchema = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });

/** `automations.run`: the run queued. */
export const QueuedRunSchema = Type.Object({ runId: Type.String({ format: 'uuid' }) });
