export { viewsModule } from './views-module';
export { createViews, type Views } from './views';
export type { ViewsDeps } from './model-calls';
