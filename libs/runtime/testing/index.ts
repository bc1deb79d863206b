import { join } from 'node:path';

// A script, not a module: specs start it as a child process (node --import tsx <path>).
export const unexpectedFailureProbePath = join(__dirname, 'unexpected-failure-probe.ts');
export const blockedStopProbePath = join(__dirname, 'blocked-stop-probe.ts');
