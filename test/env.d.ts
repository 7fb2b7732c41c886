// Test-only typing of the bindings the pool provides.
declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import('../src/index');
    durableNamespaces: 'WaitingRoom' | 'Inventory';
  }
}
