import { RecordsSetAccessInput } from './record-inputs';
import { defineProcedure, validationFailed } from '@mrp/platform';
import { rolesOfOrganization } from '@mrp/authz';
import { replaceRecordAccess } from './record-store';
import { requireRecord } from './record-procedure-support';
import { RecordAccessSchema, type RecordAccessOutput } from './schemas';

/** `records.setAccess`: which roles a record is restricted to (row-level access, `record-access.ts`). */
export const setAccessProcedure = defineProcedure({
  name: 'records.setAccess',
  summary: 'Restricts a record to the given roles ([] makes it visible to every reader of the model again)',
  scope: 'organization',
  permission: 'records.manage-access',
  input: RecordsSetAccessInput,
  output: RecordAccessSchema,
  async handler(ctx, input): Promise<RecordAccessOutput> {
    const record = await requireRecord(ctx, input.id, 'live', true);
    const roleIds = input.roleIds.map((id) => id.toLowerCase());
    const known = await rolesOfOrganization(ctx.em, ctx.organizationId, roleIds);
    const unknown = roleIds.flatMap((id, index) =>
      known.has(id) ? [] : [{ field: `roleIds[${index}]`, code: 'not_found', message: 'No such role in this organization' }],
    );
    if (unknown.length > 0) throw validationFailed(unknown);
    await replaceRecordAccess(ctx.em, record.id, roleIds);
    return { id: record.id, roleIds: [...roleIds].sort() };
  },
});
