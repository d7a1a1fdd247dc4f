import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InFlightList } from '../../../core/pipeline/in-flight-list.js';

describe('InFlightList', () => {
  it('holds what was added until its remover runs, in any order', () => {
    const list = new InFlightList<string>();
    const removeA = list.add('a');
    const removeB = list.add('b');
    const removeC = list.add('c');
    assert.equal(list.size, 3);
    removeA();
    assert.deepEqual(list.values().sort(), ['b', 'c']);
    removeC();
    assert.deepEqual(list.values(), ['b']);
    const removeD = list.add('d');
    removeB();
    assert.deepEqual(list.values(), ['d']);
    removeD();
    assert.equal(list.size, 0);
    assert.deepEqual(list.values(), []);
  });

  it('removes once: a second call does not take another entry out', () => {
    const list = new InFlightList<number>();
    const remove1 = list.add(1);
    list.add(2);
    remove1();
    remove1();
    assert.deepEqual(list.values(), [2]);
  });

  it('values() is a copy, so entries may leave while the caller walks it', () => {
    const list = new InFlightList<number>();
    const removers = [1, 2, 3, 4].map((n) => list.add(n));
    const seen: number[] = [];
    for (const n of list.values()) {
      seen.push(n);
      removers[n - 1]?.();
    }
    assert.deepEqual(seen.sort(), [1, 2, 3, 4]);
    assert.equal(list.size, 0);
  });

  it('keeps the same entries as a Set under a random mix of adds and removes', () => {
    const list = new InFlightList<number>();
    const model = new Set<number>();
    const removers = new Map<number, () => void>();
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let i = 0; i < 2000; i++) {
      if (model.size === 0 || random(3) > 0) {
        removers.set(i, list.add(i));
        model.add(i);
      } else {
        const victim = [...model][random(model.size)] as number;
        removers.get(victim)?.();
        model.delete(victim);
      }
      assert.equal(list.size, model.size);
    }
    assert.deepEqual(list.values().sort((a, b) => a - b), [...model].sort((a, b) => a - b));
  });
});
