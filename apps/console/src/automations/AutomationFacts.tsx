import type { Automation } from '../api/automation-types';
import { formatDateTime } from '../app/format';
import { describeTrigger } from './trigger-form';

/** What an automation does: status, trigger, actions, whom it runs as, its rate. */
export function AutomationFacts({ automation: shown, myUserId }: { automation: Automation; myUserId: string }) {
  return (
    <dl className="facts">
      <dt>Status</dt>
      <dd>
        <span className={`badge badge-${shown.enabled ? 'active' : 'disabled'}`}>{shown.enabled ? 'enabled' : 'disabled'}</span>
      </dd>
      <dt>Trigger</dt>
      <dd>
        <code>{describeTrigger(shown.trigger)}</code>
        {shown.trigger.type === 'schedule' ? ` · next ${formatDateTime(shown.trigger.nextRunAt)}` : ''}
        {shown.trigger.type === 'http' ? (
          <span className="choice-description">
            <code className="url">POST {location.origin}/hooks/automation/{shown.id}</code>
          </span>
        ) : null}
      </dd>
      <dt>Actions</dt>
      <dd>
        <ol className="compact-list">
          {shown.actions.map((action, index) => (
            <li key={index}>
              {action.type}
              {action.model ? ` in ${action.model}` : ''}
              {action.data ? ` (sets ${Object.keys(action.data).join(', ') || 'nothing'})` : ''}
              {action.type === 'notify' ? `: ${action.title ?? ''}` : ''}
            </li>
          ))}
        </ol>
      </dd>
      <dt>Runs as</dt>
      <dd>{shown.ownerId === myUserId ? 'You' : <code>{shown.ownerId}</code>}</dd>
      <dt>Rate</dt>
      <dd>at most {shown.maxRunsPerMinute} runs a minute</dd>
    </dl>
  );
}
