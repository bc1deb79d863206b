export interface FormulaOrder {
  /** Formula keys such that each comes after every formula it reads. Excludes keys in cycles. */
  readonly order: string[];
  /** Each cycle's members; cycles and their members follow the order the formulas were given in. */
  readonly cycles: string[][];
}

/**
 * Orders formulas by their dependencies on other formulas using Tarjan's strongly connected
 * components algorithm: components are completed dependencies-first, which is exactly the
 * evaluation order, and any component with more than one member (or a self-reference) is a cycle.
 *
 * @param dependencies formula key -> keys of the formulas it references (other keys are ignored)
 */
export function orderFormulas(dependencies: ReadonlyMap<string, readonly string[]>): FormulaOrder {
  const order: string[] = [];
  const cycles: string[][] = [];
  const position = new Map([...dependencies.keys()].map((key, index) => [key, index]));
  const discovery = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();

  const connect = (key: string): void => {
    discovery.set(key, discovery.size);
    lowLink.set(key, discovery.get(key) ?? 0);
    stack.push(key);
    onStack.add(key);

    for (const dependency of dependencies.get(key) ?? []) {
      if (!dependencies.has(dependency)) continue;
      if (!discovery.has(dependency)) {
        connect(dependency);
        lowLink.set(key, Math.min(lowLink.get(key) ?? 0, lowLink.get(dependency) ?? 0));
      } else if (onStack.has(dependency)) {
        lowLink.set(key, Math.min(lowLink.get(key) ?? 0, discovery.get(dependency) ?? 0));
      }
    }

    if (lowLink.get(key) !== discovery.get(key)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== key);

    const selfReferencing = dependencies.get(key)?.includes(key) ?? false;
    if (component.length > 1 || selfReferencing) {
      cycles.push(component.sort((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0)));
    } else {
      order.push(key);
    }
  };

  for (const key of dependencies.keys()) {
    if (!discovery.has(key)) connect(key);
  }
  const firstPosition = (cycle: readonly string[]) => position.get(cycle[0] ?? '') ?? 0;
  cycles.sort((left, right) => firstPosition(left) - firstPosition(right));
  return { order, cycles };
}
