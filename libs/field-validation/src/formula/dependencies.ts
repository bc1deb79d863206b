import type { FormulaAst } from './ast';

/** Keys of the fields a formula reads, each once, in order of first appearance. */
export function formulaDependencies(ast: FormulaAst): string[] {
  const keys = new Set<string>();
  const visit = (node: FormulaAst): void => {
    switch (node.kind) {
      case 'field':
        keys.add(node.key);
        return;
      case 'negate':
        visit(node.operand);
        return;
      case 'binary':
        visit(node.left);
        visit(node.right);
        return;
      case 'call':
        node.args.forEach(visit);
        return;
      default:
        return;
    }
  };
  visit(ast);
  return [...keys];
}
