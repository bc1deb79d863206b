import { orderFormulas } from './dependency-graph';

describe('orderFormulas', () => {
  it('orders every formula after the formulas it reads', () => {
    const { order, cycles } = orderFormulas(
      new Map([
        ['total', ['subtotal', 'tax']],
        ['tax', ['subtotal']],
        ['subtotal', []],
        ['label', ['total', 'price']],
      ]),
    );
    expect(cycles).toEqual([]);
    expect(order).toHaveLength(4);
    const at = (key: string) => order.indexOf(key);
    expect(at('subtotal')).toBeLessThan(at('tax'));
    expect(at('tax')).toBeLessThan(at('total'));
    expect(at('total')).toBeLessThan(at('label'));
  });

  it('reports cycles and self-references, leaving their members out of the order', () => {
    const { order, cycles } = orderFormulas(
      new Map([
        ['a', ['b']],
        ['b', ['a']],
        ['self', ['self']],
        ['reader', ['a']],
        ['free', []],
      ]),
    );
    expect(cycles).toEqual([['a', 'b'], ['self']]);
    expect(order.sort()).toEqual(['free', 'reader']);
  });

  it('handles long chains', () => {
    const size = 500;
    const chain = new Map(Array.from({ length: size }, (_, index) => [`f${index}`, index === 0 ? [] : [`f${index - 1}`]]));
    expect(orderFormulas(chain).order).toEqual(Array.from({ length: size }, (_, index) => `f${index}`));
  });
});
