import { useEffect, useMemo, useState } from 'react';
import { useRpcQuery } from '../api/use-rpc-query';
import { liveFields } from '../data-models/field-types';
import type { DataField, DataModel } from '../data-models/types';
import type { Option } from '../forms/fields';
import { useSignedIn } from '../session/session-context';
import { isNeverDelivered } from '../webhooks/subscription-patterns';
import { useEventTypes } from '../webhooks/use-catalog';
import type { FieldsByModel } from './action-form';

export interface EditorCatalog {
  models: DataModel[];
  /** Catalog types an automation may listen to. */
  eventTypes: string[];
  knownTypes: ReadonlySet<string>;
  roles: Option[];
  /** The organization's people (not service accounts), by name. */
  people: Option[];
  error: unknown;
}

/** What the editor's pickers offer: models, event types, roles and people, as the server lists them. */
export function useEditorCatalog(): EditorCatalog {
  const { permissions } = useSignedIn();
  const catalog = useEventTypes();
  const models = useRpcQuery('dataModels.list', {}, { enabled: permissions.has('data-models.read') });
  const roles = useRpcQuery('rbac.roles.list');
  const organization = useRpcQuery('organizations.get');
  return useMemo(
    () => ({
      models: models.data?.items ?? [],
      eventTypes: catalog.types.filter((type) => !type.startsWith('notification.') && !isNeverDelivered(type)),
      knownTypes: catalog.known,
      roles: (roles.data?.items ?? []).map((role) => ({ value: role.key, label: role.name })),
      people: (organization.data?.members ?? [])
        .filter((member) => member.kind === 'HUMAN' && !member.disabled)
        .map((member) => ({ value: member.userId, label: member.displayName || member.email, description: member.email })),
      error: catalog.error ?? models.error,
    }),
    [catalog, models.data, models.error, roles.data, organization.data],
  );
}

/**
 * The live fields of each model in `modelKeys`, fetched once per model (`dataModels.fields.list`).
 * A model that cannot be read (gone, or no permission) stays absent: the server then judges it.
 */
export function useModelFields(modelKeys: readonly string[]): FieldsByModel {
  const { rpc } = useSignedIn();
  const [fields, setFields] = useState<ReadonlyMap<string, readonly DataField[]>>(new Map());
  const wanted = [...new Set(modelKeys.filter(Boolean))].sort().join(',');
  useEffect(() => {
    let current = true;
    for (const model of wanted.split(',').filter(Boolean)) {
      if (fields.has(model)) continue;
      rpc
        .call('dataModels.fields.list', { model })
        .then((answer) => {
          if (current) setFields((known) => new Map(known).set(model, liveFields(answer.items)));
        })
        .catch(() => undefined);
    }
    return () => {
      current = false;
    };
    // `fields` is read only to skip known models: a model added must not fetch the others again.
  }, [rpc, wanted]);
  return fields;
}
