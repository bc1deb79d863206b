import type { AnyProcedure } from '@mrp/platform';
import type { EventDeriver, RouteCache } from '@mrp/events';
import { createBoardProcedures } from './boards/board-procedures';
import { createBoardRoutes, type BoardRoute } from './boards/board-rows';
import { createColumnProcedures } from './boards/column-procedures';
import { createCalendarProcedures } from './calendars/calendar-procedures';
import { createCardEventDeriver } from './cards/card-event-deriver';
import { createCardProcedures } from './cards/card-procedures';
import { createGridViewProcedures } from './grids/grid-view-procedures';
import { modelCall, type ViewsDeps } from './model-calls';

export interface Views {
  procedures: AnyProcedure[];
  /** Card events from record events, for the event dispatcher. */
  deriver: EventDeriver;
  /** The boards per organization, kept while the process hears their changes (listenForRouteChanges). */
  routes: RouteCache<BoardRoute>;
}

export function createViews(deps: ViewsDeps): Views {
  const call = modelCall(deps);
  const routes = createBoardRoutes();
  return {
    procedures: [
      ...createBoardProcedures({ call, routes }),
      ...createColumnProcedures(call),
      ...createCardProcedures({ call, notifier: deps.notifier }),
      ...createCalendarProcedures(call),
      ...createGridViewProcedures(call),
    ],
    deriver: createCardEventDeriver(routes),
    routes,
  };
}
