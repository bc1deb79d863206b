import { BoardDialog } from '../views/BoardDialog';
import { ViewListPage } from '../views/ViewListPage';

/** The organization's kanban boards: each shows a model's records in the columns of a single-select field. */
export default function BoardsPage() {
  return (
    <ViewListPage
      noun="board"
      title="Boards"
      intro="A board shows a data model’s records as cards in the columns of one of its single-select fields. Moving a card changes that field."
      listProcedure="kanban.boards.list"
      deleteProcedure="kanban.boards.delete"
      deleteConsequence="The board, its card order and its assignments go. The records stay in their model."
      pathOf={(board) => `/boards/${board.id}`}
      columns={[{ header: 'Column field', cell: (board) => <code>{board.fieldKey}</code> }]}
      CreateDialog={BoardDialog}
    />
  );
}
