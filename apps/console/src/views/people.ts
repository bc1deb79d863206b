import type { ColumnOrder } from './board-moves';
import type { Card, Member } from './types';

/** Two letters for an avatar: the first letters of the first and last words of the name, else of the email. */
export function initialsOf(member: Pick<Member, 'displayName' | 'email'> | undefined): string {
  if (!member) return '?';
  const words = (member.displayName.trim() || member.email.split('@')[0] || '').split(/[\s._-]+/).filter(Boolean);
  const letters = words.length > 1 ? [words[0], words[words.length - 1]] : [words[0] ?? '?'];
  return letters
    .map((word) => Array.from(word as string)[0] ?? '')
    .join('')
    .toUpperCase();
}

export function memberName(member: Member | undefined, userId: string): string {
  return member ? member.displayName || member.email : `Former member ${userId}`;
}

/** A stable hue per person, so an avatar keeps its colour across cards. */
export function hueOf(userId: string): number {
  let hash = 0;
  for (const character of userId) hash = (hash * 31 + character.charCodeAt(0)) % 360;
  return hash;
}

/**
 * The cards a filter leaves: those whose title, or an assignee's name or email, contains the text
 * (case and accents aside). An empty filter leaves all.
 */
export function filterOrder(order: readonly ColumnOrder[], cards: ReadonlyMap<string, Card>, members: ReadonlyMap<string, Member>, text: string): ColumnOrder[] {
  const wanted = fold(text.trim());
  if (!wanted) return [...order];
  const matches = (card: Card | undefined) =>
    card !== undefined &&
    [card.record.title, ...card.assigneeUserIds.flatMap((userId) => [members.get(userId)?.displayName ?? '', members.get(userId)?.email ?? ''])].some((candidate) =>
      fold(candidate).includes(wanted),
    );
  return order.map((column) => ({ id: column.id, cardIds: column.cardIds.filter((id) => matches(cards.get(id))) }));
}

const fold = (text: string) => text.normalize('NFD').replace(/\p{Diacritic}/gu, '').toLowerCase();
