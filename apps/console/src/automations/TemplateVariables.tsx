import type { TemplateVariable } from './template-suggestions';

/** A long path wraps after its dots rather than inside a name. */
const breakable = (template: string) =>
  template.split('.').flatMap((part, index) => (index === 0 ? [part] : [<wbr key={index} />, `.${part}`]));

export interface TemplateVariablesProps {
  variables: readonly TemplateVariable[];
  /** Whether the action has a template input to insert into. */
  canInsert: boolean;
  onInsert(variable: TemplateVariable): void;
}

/**
 * The placeholders this trigger offers, beside an action's inputs: each inserts itself where the
 * caret was in the template input last focused (or the first one).
 */
export function TemplateVariables({ variables, canInsert, onInsert }: TemplateVariablesProps) {
  return (
    <aside className="template-variables" aria-label="Variables">
      <p className="template-variables-title">Variables</p>
      <p className="field-hint">{canInsert ? 'Filled in when it runs. Click one to insert it in the template input you were in.' : 'Switch a value to Template to use these.'}</p>
      <ul>
        {variables.map((variable) => (
          <li key={variable.template}>
            <button
              type="button"
              className="template-variable"
              disabled={!canInsert}
              onClick={() => onInsert(variable)}
              aria-label={`Insert ${variable.template}: ${variable.description}`}
            >
              <code>{breakable(variable.template)}</code>
              <span>{variable.description}</span>
            </button>
          </li>
        ))}
      </ul>
    </aside>
  );
}
