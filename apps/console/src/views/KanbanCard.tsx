import type { DragEvent, KeyboardEvent } from 'react';
import { hueOf, initialsOf, memberName } from './people';
import type { Card, Member } from './types';

export interface KanbanCardProps {
  card: Card;
  members: ReadonlyMap<string, Member>;
  /** Picked up with the keyboard. */
  lifted: boolean;
  dragging: boolean;
  mayMove: boolean;
  mayAssign: boolean;
  instructionsId: string;
  onOpen: () => void;
  onAssign: () => void;
  onKeyDown: (event: KeyboardEvent<HTMLElement>) => void;
  onDragStart: (event: DragEvent<HTMLElement>) => void;
  onDragOver: (event: DragEvent<HTMLElement>) => void;
  onDragEnd: () => void;
}

/** A card: its title and its assignees' initials. Click or Enter opens the record; Space picks it up. */
export function KanbanCard({ card, members, lifted, dragging, mayMove, mayAssign, instructionsId, onOpen, onAssign, onKeyDown, onDragStart, onDragOver, onDragEnd }: KanbanCardProps) {
  const title = card.record.title || 'Untitled';
  const names = card.assigneeUserIds.map((userId) => memberName(members.get(userId), userId));
  return (
    <article
      className={`kanban-card${lifted ? ' kanban-card-lifted' : ''}${dragging ? ' kanban-card-dragging' : ''}`}
      data-card-id={card.record.id}
      tabIndex={0}
      aria-label={title}
      aria-roledescription={mayMove ? 'movable card' : 'card'}
      aria-describedby={mayMove ? instructionsId : undefined}
      draggable={mayMove}
      onClick={onOpen}
      onKeyDown={onKeyDown}
      onDragStart={onDragStart}
      onDragOver={onDragOver}
      onDragEnd={onDragEnd}
    >
      <p className="kanban-card-title">{title}</p>
      <div className="kanban-card-foot">
        <ul className="avatars" aria-label={names.length > 0 ? `Assigned to ${names.join(', ')}` : 'No one assigned'}>
          {card.assigneeUserIds.map((userId, index) => (
            <li key={userId} className="avatar" title={names[index]} style={{ backgroundColor: `hsl(${hueOf(userId)} 55% 38%)` }} aria-hidden="true">
              {initialsOf(members.get(userId))}
            </li>
          ))}
        </ul>
        {mayAssign ? (
          <button
            type="button"
            className="button button-small button-quiet"
            aria-label={`Assign people to ${title}`}
            onClick={(event) => {
              event.stopPropagation();
              onAssign();
            }}
            onKeyDown={(event) => event.stopPropagation()}
          >
            Assign
          </button>
        ) : null}
      </div>
    </article>
  );
}
