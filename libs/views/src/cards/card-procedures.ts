import { defineProcedure, notFound, sqlTextArray, validationFailed, type ProcedureContext } from '@mrp/platform';
import { createEvent } from '@mrp/events';
import { organizationMemberIds, type UserNotifier } from '@mrp/authz';
import { requireBoard, type BoardRow } from '../boards/board-rows';
import type { ModelCall, RecordView } from '../model-calls';
import { CardsAssignInput, CardsListInput, CardsMoveInput } from './card-inputs';
import { columnPage } from './card-listing';
import { CardAssignmentSchema, CardListSchema, CardMoveSchema } from './card-schemas';
import { placeAtEnd, placeBefore } from './card-positions';

type OrgContext = ProcedureContext<'organization'>;

export interface CardProcedureDeps {
  call: ModelCall;
  notifier: UserNotifier;
}

export function createCardProcedures({ call, notifier }: CardProcedureDeps) {
  /** The record, as the caller may read it (404 when hidden from them, or not of the board's model). */
  async function requireCardRecord(ctx: OrgContext, board: BoardRow, recordId: string): Promise<RecordView> {
    const record = await call(ctx, 'records.get', { id: recordId });
    if (record.model !== board.model_key) throw notFound('Record');
    return record;
  }

  const list = defineProcedure({
    name: 'kanban.cards.list',
    summary: "One page of a column's cards, in position order",
    scope: 'organization',
    permission: 'data-models.read',
    readOnly: true,
    input: CardsListInput,
    output: CardListSchema,
    async handler(ctx, input) {
      const board = await requireBoard(ctx.em, ctx.organizationId, input.boardId);
      const page = await columnPage(call, ctx, board, input.column, input.cursor, input.limit ?? 25);
      return { items: page.cards, nextCursor: page.nextCursor };
    },
  });

  const move = defineProcedure({
    name: 'kanban.cards.move',
    summary: 'Moves a card to a column (records.update of the board field) and a place in it: before another card, or last',
    scope: 'organization',
    permission: 'records.update',
    input: CardsMoveInput,
    output: CardMoveSchema,
    async handler(ctx, input) {
      const board = await requireBoard(ctx.em, ctx.organizationId, input.boardId);
      let record = await requireCardRecord(ctx, board, input.recordId);
      const from = record.data[board.field_key];
      if (from !== input.column) {
        // The column is the record's value: records.update checks it (an unknown column is an invalid
        // option), writes it and emits record-updated, from which the deriver makes card-moved.
        record = await call(ctx, 'records.update', { id: record.id, data: { [board.field_key]: input.column } });
      }
      // Placed before commit, so the deriver finds the card already in its new column and leaves it there.
      const place =
        input.before === undefined
          ? await placeAtEnd(ctx.em, board.id, record.id, input.column)
          : await placeBefore(ctx.em, board.id, record.id, input.column, input.before);
      if (from === input.column) {
        // Within its column no record changes, so no record event says it: the move says it itself.
        ctx.emit(
          createEvent(
            'kanban.card-moved',
            { boardId: board.id, cardId: record.id, fromColumnId: input.column, toColumnId: input.column, modelKey: board.model_key },
            { organizationId: ctx.organizationId },
          ),
        );
      }
      return { record, column: input.column, position: place.position };
    },
  });

  const assign = defineProcedure({
    name: 'kanban.cards.assign',
    summary: "Sets a card's assignees (members of the organization); each new assignee is notified",
    scope: 'organization',
    permission: 'records.update',
    input: CardsAssignInput,
    output: CardAssignmentSchema,
    async handler(ctx, input) {
      const board = await requireBoard(ctx.em, ctx.organizationId, input.boardId);
      const record = await requireCardRecord(ctx, board, input.recordId);
      const members = new Set((await organizationMemberIds(ctx.em, ctx.organizationId, { userIds: input.userIds })) ?? []);
      const strangers = input.userIds.flatMap((userId, index) =>
        members.has(userId) ? [] : [{ field: `userIds[${index}]`, code: 'not_found', message: 'Not a member of this organization' }],
      );
      if (strangers.length > 0) throw validationFailed(strangers);
      await ctx.em.execute('DELETE FROM kanban_card_assignees WHERE board_id = ? AND record_id = ? AND NOT (user_id = ANY(?::text[]))', [
        board.id,
        record.id,
        sqlTextArray(input.userIds),
      ]);
      const added = await ctx.em.execute<Array<{ user_id: string }>>(
        `INSERT INTO kanban_card_assignees (board_id, record_id, user_id, assigned_by)
         SELECT ?, ?, u.user_id, ? FROM unnest(?::text[]) AS u(user_id)
         ON CONFLICT DO NOTHING RETURNING user_id`,
        [board.id, record.id, ctx.principal.userId, sqlTextArray(input.userIds)],
      );
      const newcomers = input.userIds.filter((userId) => added.some((row) => row.user_id === userId));
      for (const assigneeUserId of newcomers) {
        ctx.emit(
          createEvent(
            'kanban.card-assigned',
            { boardId: board.id, cardId: record.id, assigneeUserId, assignedBy: ctx.principal.userId },
            { organizationId: ctx.organizationId },
          ),
        );
      }
      // The notice names the board, not the card: an assignee may not be allowed to read the record.
      if (newcomers.length > 0) {
        await notifier.notify(ctx, newcomers, {
          kind: 'kanban.card-assigned',
          title: `You were assigned a card on the board "${board.name}"`,
          data: { boardId: board.id, recordId: record.id },
          organizationId: ctx.organizationId,
        });
      }
      return { boardId: board.id, recordId: record.id, userIds: input.userIds };
    },
  });

  return [list, move, assign];
}
