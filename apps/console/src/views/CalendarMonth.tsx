import { dayKey, monthGrid } from './calendar-grid';
import { clickFree, DayButton, DayEvents, type CalendarGridProps } from './calendar-cells';

const weekdayName = new Intl.DateTimeFormat(undefined, { weekday: 'short' });

/** A month as weeks of days, each with its events; a day takes a drop. */
export function CalendarMonth(grid: CalendarGridProps) {
  const { anchor, title, byDay, today, dropDay, drag } = grid;
  const weeks = monthGrid(anchor);
  return (
    <table className="calendar-grid calendar-month">
      <caption className="visually-hidden">{title}</caption>
      <thead>
        <tr>
          {(weeks[0] ?? []).map((day) => (
            <th scope="col" key={day.getDay()}>
              {weekdayName.format(day)}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {weeks.map((week) => (
          <tr key={dayKey(week[0] as Date)}>
            {week.map((day) => {
              const key = dayKey(day);
              return (
                <td
                  key={key}
                  data-day={key}
                  className={`${day.getMonth() === anchor.getMonth() ? '' : 'other-month'}${dropDay === key ? ' drop-target' : ''}`}
                  aria-current={key === today ? 'date' : undefined}
                  onClick={clickFree(grid, day)}
                  onDragOver={drag.over(key)}
                  onDrop={drag.drop({ day: key })}
                >
                  <DayButton grid={grid} day={day} text={String(day.getDate())} />
                  <DayEvents grid={grid} records={byDay.get(key) ?? []} day={key} />
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
