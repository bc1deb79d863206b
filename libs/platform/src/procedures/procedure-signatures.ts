import type { Static } from '@sinclair/typebox';
import type { AnyProcedure } from './procedure';

/** What a call to one procedure takes and answers. */
export interface ProcedureSignature {
  input: unknown;
  output: unknown;
}

/**
 * A lib's contracts map (decision 155): each procedure's name to its signature, written from the
 * static types of the schemas the procedure declares, so a caller by name gets both types.
 */
export type ProcedureSignatures<TMap> = { [Name in keyof TMap]: ProcedureSignature };

/**
 * The signatures a set of procedures really has: the input schema's static type and what the
 * handler resolves to. A lib's spec compares its contracts map with this (`SignatureDrift`).
 * System procedures are left out: no door serves them and no lib calls them by name.
 */
export type SignaturesOf<TProcedure extends AnyProcedure> = {
  [Each in TProcedure as Each['scope'] extends 'system' ? never : Each['name']]: { input: Static<Each['input']>; output: Awaited<ReturnType<Each['handler']>> };
};

// Identical, not merely assignable both ways: `{ id; fields? }` and `{ id; hard? }` are that too.
type SameType<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/**
 * The names on which a contracts map and the procedures disagree: a name on one side only, an
 * input that is not the same type, or an answer the handler gives that the contract's type does
 * not take. `never` when they agree.
 */
export type SignatureDrift<TDerived, TContract> =
  | Exclude<keyof TDerived, keyof TContract>
  | Exclude<keyof TContract, keyof TDerived>
  | {
      [Name in keyof TDerived & keyof TContract]: TDerived[Name] extends { input: infer Input; output: infer Output }
        ? TContract[Name] extends { input: infer ContractInput; output: infer ContractOutput }
          ? SameType<Input, ContractInput> extends true
            ? [Output] extends [ContractOutput]
              ? never
              : Name
            : Name
          : Name
        : Name;
    }[keyof TDerived & keyof TContract];
