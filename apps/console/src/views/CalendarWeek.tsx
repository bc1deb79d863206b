import { dayKey, weekDays } from './calendar-grid';
import { clickFree, DayButton, DayEvents, type CalendarGridProps } from './calendar-cells';

const HOURS = Array.from({ length: 24 }, (_, hour) => hour);
const shortDay = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short' });
const hourLabel = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

/** A week: one row of days for DATE events, or 24 hour rows for DATETIME ones (an hour takes a drop). Loaded when first shown. */
export default function CalendarWeek(grid: CalendarGridProps) {
  const { anchor, title, cal, byDay, today, dropDay, drag } = grid;
  const days = weekDays(anchor);
  return (
    <table className="calendar-grid calendar-week">
      <caption className="visually-hidden">{title}</caption>
      <thead>
        <tr>
          {cal.type === 'DATETIME' ? <td /> : null}
          {days.map((day) => (
            <th scope="col" key={dayKey(day)} aria-current={dayKey(day) === today ? 'date' : undefined}>
              <DayButton grid={grid} day={day} text={shortDay.format(day)} />
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {cal.type === 'DATE' ? (
          <tr>
            {days.map((day) => {
              const key = dayKey(day);
              return (
                <td key={key} data-day={key} className={dropDay === key ? 'drop-target' : undefined} onClick={clickFree(grid, day)} onDragOver={drag.over(key)} onDrop={drag.drop({ day: key })}>
                  <DayEvents grid={grid} records={byDay.get(key) ?? []} day={key} />
                </td>
              );
            })}
          </tr>
        ) : (
          HOURS.map((hour) => (
            <tr key={hour}>
              <th scope="row" className="hour-label">
                {hourLabel.format(new Date(2000, 0, 1, hour))}
              </th>
              {days.map((day) => {
                const key = dayKey(day);
                const slot = `${key}T${hour}`;
                const here = (byDay.get(key) ?? []).filter((record) => {
                  const start = new Date(String(record.data[cal.startKey]));
                  // An event that began on an earlier day shows in the day's first hour.
                  return dayKey(start) === key ? start.getHours() === hour : hour === 0;
                });
                return (
                  <td key={key} data-slot={slot} className={dropDay === slot ? 'drop-target' : undefined} onClick={clickFree(grid, day, hour)} onDragOver={drag.over(slot)} onDrop={drag.drop({ day: key, hour })}>
                    <DayEvents grid={grid} records={here} day={key} />
                  </td>
                );
              })}
            </tr>
          ))
        )}
      </tbody>
    </table>
  );
}
