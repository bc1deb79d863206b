import { useEffect, useState } from 'react';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { CheckboxGroup } from '../forms/fields';
import { useSignedIn } from '../session/session-context';
import { memberName } from './people';
import type { Card, Member } from './types';

/** At most this many people on a card (kanban.cards.assign's limit). */
export const MAX_ASSIGNEES = 20;

export interface AssignDialogProps {
  open: boolean;
  boardId: string;
  card?: Card;
  members: readonly Member[];
  onClose: (userIds?: string[]) => void;
}

/**
 * Who is on a card: the organization's people (not service accounts, who get no notifications,
 * nor disabled accounts), plus anyone already assigned.
 */
export function AssignDialog({ open, boardId, card, members, onClose }: AssignDialogProps) {
  const { rpc } = useSignedIn();
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!open) return;
    setChosen(new Set(card?.assigneeUserIds ?? []));
    setError(undefined);
  }, [open, card]);

  const assigned = new Set(card?.assigneeUserIds ?? []);
  const byId = new Map(members.map((member) => [member.userId, member]));
  const offered = [
    ...members.filter((member) => (member.kind === 'HUMAN' && !member.disabled) || assigned.has(member.userId)).map((member) => member.userId),
    ...[...assigned].filter((userId) => !byId.has(userId)),
  ];
  const tooMany = chosen.size > MAX_ASSIGNEES ? `At most ${MAX_ASSIGNEES} people` : undefined;

  const save = async () => {
    if (!card || tooMany) return;
    setBusy(true);
    setError(undefined);
    // In the order offered, so the avatars keep a stable order.
    const userIds = offered.filter((userId) => chosen.has(userId));
    try {
      await rpc.call('kanban.cards.assign', { boardId, recordId: card.record.id, userIds });
      onClose(userIds);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={open}
      title={`Assign ${card?.record.title || 'card'}`}
      onClose={() => onClose()}
      busy={busy}
      footer={
        <>
          <button type="button" className="button" onClick={() => onClose()} disabled={busy}>
            Cancel
          </button>
          <button type="button" className="button button-primary" onClick={() => void save()} disabled={busy}>
            {busy ? 'Saving…' : 'Save assignees'}
          </button>
        </>
      }
    >
      <ErrorNotice error={error} />
      <CheckboxGroup
        label="Assignees"
        hint="Each person newly assigned is notified."
        values={chosen}
        options={offered.map((userId) => {
          const member = byId.get(userId);
          return { value: userId, label: memberName(member, userId), ...(member && member.displayName ? { description: member.email } : {}) };
        })}
        onChange={setChosen}
        error={tooMany}
        empty="No one to assign."
      />
    </Dialog>
  );
}
