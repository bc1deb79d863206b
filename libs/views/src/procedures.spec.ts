import type { SignatureDrift, SignaturesOf } from '@mrp/platform';
import type { createBoardProcedures } from './boards/board-procedures';
import type { createColumnProcedures } from './boards/column-procedures';
import type { createCalendarProcedures } from './calendars/calendar-procedures';
import type { createCardProcedures } from './cards/card-procedures';
import type { ViewsProcedures } from './contracts';
import type { createGridViewProcedures } from './grids/grid-view-procedures';

/**
 * Type-level: the views lib's contracts map (what callers by name are typed with) says what the
 * procedures declare. This file fails the typecheck, not a test run, when they drift.
 */
type ViewsProcedure =
  | ReturnType<typeof createBoardProcedures>[number]
  | ReturnType<typeof createColumnProcedures>[number]
  | ReturnType<typeof createCardProcedures>[number]
  | ReturnType<typeof createCalendarProcedures>[number]
  | ReturnType<typeof createGridViewProcedures>[number];
type Served = SignaturesOf<ViewsProcedure>;
type Drift = SignatureDrift<Served, ViewsProcedures>;

const noDrift: [Drift] extends [never] ? true : Drift = true;

// A contract that restates an input by hand and gets it wrong is named.
type WrongInput = Omit<ViewsProcedures, 'calendars.get'> & { 'calendars.get': { input: { id: number }; output: ViewsProcedures['calendars.get']['output'] } };
const wrongInputNamed: SignatureDrift<Served, WrongInput> = 'calendars.get';
// An answer the contract does not cover is named.
type WrongOutput = Omit<ViewsProcedures, 'kanban.cards.move'> & {
  'kanban.cards.move': { input: ViewsProcedures['kanban.cards.move']['input']; output: { column: number } };
};
const wrongOutputNamed: SignatureDrift<Served, WrongOutput> = 'kanban.cards.move';
// A procedure the contract forgets is named.
const missingNamed: SignatureDrift<Served, Omit<ViewsProcedures, 'views.grids.delete'>> = 'views.grids.delete';

describe("the views lib's contracts map", () => {
  it('matches the procedures (checked by the typecheck)', () => {
    expect([noDrift, wrongInputNamed, wrongOutputNamed, missingNamed]).toEqual([true, 'calendars.get', 'kanban.cards.move', 'views.grids.delete']);
  });
});
