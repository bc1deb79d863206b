import { Link } from '../app/router';
import type { RecordsToolProps } from '../records/RecordsToolbarTools';
import { useSignedIn } from '../session/session-context';

/** The way to the model's trash, for those who may restore what was deleted. */
export function TrashLink({ modelKey }: Pick<RecordsToolProps, 'modelKey'>) {
  const { permissions } = useSignedIn();
  if (!permissions.has('records.delete')) return null;
  return (
    <Link to={`/models/${encodeURIComponent(modelKey)}/trash`} className="button button-small button-quiet">
      Trash
    </Link>
  );
}
