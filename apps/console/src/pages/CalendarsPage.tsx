import { CalendarDialog } from '../views/CalendarDialog';
import { ViewListPage } from '../views/ViewListPage';

/** The organization's calendars: each shows a model's records on the days of one of its date fields. */
export default function CalendarsPage() {
  return (
    <ViewListPage
      noun="calendar"
      title="Calendars"
      intro="A calendar shows a data model’s records on the days of one of its date fields, from start to end when it has an end field. Moving an event changes those fields."
      listProcedure="calendars.list"
      deleteProcedure="calendars.delete"
      deleteConsequence="The calendar goes. The records stay in their model."
      pathOf={(calendar) => `/calendars/${calendar.id}`}
      columns={[
        { header: 'Starts at', cell: (calendar) => <code>{calendar.startFieldKey}</code> },
        { header: 'Ends at', cell: (calendar) => (calendar.endFieldKey ? <code>{calendar.endFieldKey}</code> : '—') },
      ]}
      CreateDialog={CalendarDialog}
    />
  );
}
