import { describe, expect, it } from 'vitest';
import { cardAfter, keyboardMove, moveBefore, movesCard, type ColumnOrder } from './board-moves';

const BOARD: ColumnOrder[] = [
  { id: 'todo', cardIds: ['a', 'b', 'c'] },
  { id: 'doing', cardIds: ['d'] },
  { id: 'done', cardIds: [] },
];

const ids = (columns: ColumnOrder[]) => Object.fromEntries(columns.map((column) => [column.id, column.cardIds]));

describe('keyboardMove', () => {
  it('moves a card up one place in its column, before the card it passed', () => {
    const move = keyboardMove(BOARD, 'b', 'ArrowUp');
    expect(move).toMatchObject({ column: 'todo', before: 'a' });
    expect(ids(move!.columns)).toEqual({ todo: ['b', 'a', 'c'], doing: ['d'], done: [] });
  });

  it('moves a card down one place; at the bottom it goes last, with no before', () => {
    const down = keyboardMove(BOARD, 'a', 'ArrowDown');
    expect(down).toMatchObject({ column: 'todo', before: 'c' });
    expect(ids(down!.columns).todo).toEqual(['b', 'a', 'c']);
    const last = keyboardMove(BOARD, 'b', 'ArrowDown');
    expect(last?.column).toBe('todo');
    expect(last).not.toHaveProperty('before');
    expect(ids(last!.columns).todo).toEqual(['a', 'c', 'b']);
  });

  it('goes nowhere past the top or the bottom of its column', () => {
    expect(keyboardMove(BOARD, 'a', 'ArrowUp')).toBeNull();
    expect(keyboardMove(BOARD, 'c', 'ArrowDown')).toBeNull();
  });

  it('moves right into the next column at the same height', () => {
    const move = keyboardMove(BOARD, 'a', 'ArrowRight');
    expect(move).toMatchObject({ column: 'doing', before: 'd' });
    expect(ids(move!.columns)).toEqual({ todo: ['b', 'c'], doing: ['a', 'd'], done: [] });
  });

  it('lands at the end of a shorter column, and into an empty one last', () => {
    const move = keyboardMove(BOARD, 'c', 'ArrowRight');
    expect(move?.column).toBe('doing');
    expect(move).not.toHaveProperty('before');
    expect(ids(move!.columns).doing).toEqual(['d', 'c']);
    const empty = keyboardMove(BOARD, 'd', 'ArrowRight');
    expect(empty?.column).toBe('done');
    expect(empty).not.toHaveProperty('before');
    expect(ids(empty!.columns)).toEqual({ todo: ['a', 'b', 'c'], doing: [], done: ['d'] });
  });

  it('moves left into the previous column, and goes nowhere past the first or the last column', () => {
    const move = keyboardMove(BOARD, 'd', 'ArrowLeft');
    expect(move).toMatchObject({ column: 'todo', before: 'a' });
    expect(keyboardMove(BOARD, 'a', 'ArrowLeft')).toBeNull();
    expect(keyboardMove(moveBefore(BOARD, 'a', 'done'), 'a', 'ArrowRight')).toBeNull();
  });

  it('does nothing for a card the board does not hold', () => {
    expect(keyboardMove(BOARD, 'zz', 'ArrowDown')).toBeNull();
  });

  it('moves step by step: two presses right take a card across two columns', () => {
    const first = keyboardMove(BOARD, 'b', 'ArrowRight')!;
    const second = keyboardMove(first.columns, 'b', 'ArrowRight')!;
    expect(second.column).toBe('done');
    expect(ids(second.columns)).toEqual({ todo: ['a', 'c'], doing: ['d'], done: ['b'] });
  });
});

describe('moveBefore and movesCard (a pointer drop)', () => {
  it('puts the card before another card, or last', () => {
    expect(ids(moveBefore(BOARD, 'c', 'todo', 'a')).todo).toEqual(['c', 'a', 'b']);
    expect(ids(moveBefore(BOARD, 'a', 'doing')).doing).toEqual(['d', 'a']);
    expect(ids(moveBefore(BOARD, 'a', 'doing', 'not-there')).doing).toEqual(['d', 'a']);
  });

  it('knows a drop in the same place changes nothing', () => {
    expect(cardAfter(BOARD, 'a')).toBe('b');
    expect(cardAfter(BOARD, 'c')).toBeUndefined();
    expect(movesCard(BOARD, 'a', 'todo', 'b')).toBe(false);
    expect(movesCard(BOARD, 'a', 'todo', 'a')).toBe(false);
    expect(movesCard(BOARD, 'c', 'todo')).toBe(false);
    expect(movesCard(BOARD, 'a', 'todo', 'c')).toBe(true);
    expect(movesCard(BOARD, 'a', 'doing')).toBe(true);
  });
});
