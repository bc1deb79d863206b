export {
  createDataModelsTestEnv,
  RecordingDispatcher,
  type DataModelsTestEnv,
  type SentNotification,
  type TestOrganization,
} from './fixtures';
