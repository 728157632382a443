// A small typed event emitter: on() returns a function that removes the listener. Listeners
// stay registered across reconnects and hand-offs (they belong to the client, not a connection).
// A listener that throws does not stop the others; its error is reported to `onListenerError`.

export type Listener<A extends unknown[]> = (...args: A) => void;

export class Emitter<E extends { [K in keyof E]: unknown[] }> {
  private readonly listeners: { [K in keyof E]?: Array<Listener<E[K]>> } = {};
  onListenerError: (e: unknown) => void = (e) => {
    queueMicrotask(() => {
      throw e;
    });
  };

  on<K extends keyof E>(event: K, fn: Listener<E[K]>): () => void {
    (this.listeners[event] ??= []).push(fn);
    return () => this.off(event, fn);
  }

  off<K extends keyof E>(event: K, fn: Listener<E[K]>): void {
    const list = this.listeners[event];
    if (list) this.listeners[event] = list.filter((f) => f !== fn);
  }

  has<K extends keyof E>(event: K): boolean {
    return (this.listeners[event]?.length ?? 0) > 0;
  }

  emit<K extends keyof E>(event: K, ...args: E[K]): void {
    const list = this.listeners[event];
    if (!list) return;
    for (const fn of list) {
      try {
        fn(...args);
      } catch (e) {
        this.onListenerError(e);
      }
    }
  }
}
