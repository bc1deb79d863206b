export default function ServiceAccountsPage() {
  return <h1>Service accounts</h1>;
}
