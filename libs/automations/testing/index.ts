export { createRunTestBed, type RunTestBed } from './run-fixtures';
