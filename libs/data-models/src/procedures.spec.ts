import type { SignatureDrift, SignaturesOf } from '@mrp/platform';
import type { DataModelsProcedures } from './contracts';
import type { createDataModelsProcedures } from './procedures';

/**
 * Type-level: data-models' contracts map (what callers by name are typed with) says what the
 * procedures declare. This file fails the typecheck, not a test run, when they drift.
 */
type Served = Omit<SignaturesOf<ReturnType<typeof createDataModelsProcedures>[number]>, 'records.export'>;
type Drift = SignatureDrift<Served, DataModelsProcedures>;

const noDrift: [Drift] extends [never] ? true : Drift = true;

// A contract that restates an input by hand and gets it wrong is named.
type WrongInput = Omit<DataModelsProcedures, 'records.get'> & { 'records.get': { input: { id: number }; output: DataModelsProcedures['records.get']['output'] } };
const wrongInputNamed: SignatureDrift<Served, WrongInput> = 'records.get';
// An answer the contract does not cover is named.
type WrongOutput = Omit<DataModelsProcedures, 'dataModels.get'> & { 'dataModels.get': { input: DataModelsProcedures['dataModels.get']['input']; output: { key: number } } };
const wrongOutputNamed: SignatureDrift<Served, WrongOutput> = 'dataModels.get';
// A procedure the contract forgets is named.
const missingNamed: SignatureDrift<Served, Omit<DataModelsProcedures, 'records.count'>> = 'records.count';

describe("data-models' contracts map", () => {
  it('matches the procedures (checked by the typecheck)', () => {
    expect([noDrift, wrongInputNamed, wrongOutputNamed, missingNamed]).toEqual([true, 'records.get', 'dataModels.get', 'records.count']);
  });
});
