/** Counts stop here: past it a model's count costs as much as reading the model, and a list shows "10,000+". */
export const RECORD_COUNT_CAP = 10_000;
