/**
 * Whether this api process wants new traffic. It stops wanting it the moment it is asked to stop,
 * while it still serves: the load balancer's readiness checks see that and route elsewhere.
 */
export class Readiness {
  private drainingNow = false;

  get draining(): boolean {
    return this.drainingNow;
  }

  startDraining(): void {
    this.drainingNow = true;
  }
}
