import { Component, type ReactNode } from 'react';
import { ErrorNotice } from './ErrorNotice';

/** A page that fails to render (or whose code fails to load) shows why instead of a blank screen. */
export class ErrorBoundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: undefined };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  override render() {
    if (this.state.error !== undefined) return <ErrorNotice error={this.state.error} />;
    return this.props.children;
  }
}
