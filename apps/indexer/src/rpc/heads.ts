/**
 * New heads pushed over WebSocket (lower latency than polling): where a network's RPC URL is `ws(s)://`, an
 * `eth_subscribe` `newHeads` subscription wakes the follower as soon as a block arrives. It only wakes: every read
 * still goes through the validated JSON-RPC layer, and the poll interval stays the fall-back, so a node that refuses
 * the subscription or drops it is still followed (by polling) while the subscription is retried.
 */
import { webSocket } from "viem";
import type { RpcRequest } from "./rpc";

export const isWebSocketUrl = (url: string): boolean => /^wss?:\/\//i.test(url);

export interface HeadSource {
  /** Subscribes if not subscribed; resolves true while a subscription is live. Never throws. */
  ensure(): Promise<boolean>;
  live(): boolean;
  close(): Promise<void>;
}

/** Resolves `promise`, or undefined after `ms`: a closing socket may never answer its last request. */
const within = <T>(promise: Promise<T>, ms: number): Promise<T | undefined> =>
  Promise.race([
    promise,
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms).unref()),
  ]);

interface SubscribingTransport {
  getRpcClient(): Promise<{ close(): void }>;
  subscribe(args: {
    params: ["newHeads"];
    onData: (data: unknown) => void;
    onError?: (error: unknown) => void;
  }): Promise<{ unsubscribe: () => Promise<unknown> }>;
}

/** JSON-RPC requests and head subscriptions over one WebSocket per URL (viem shares the socket). */
export function webSocketRpc(
  url: string,
  timeoutMs: number,
): { request: RpcRequest; heads: (onHead: () => void, onError: (error: unknown) => void) => HeadSource } {
  // Retries are the follower's (it backs off per network); viem reconnects the socket itself.
  const transport = webSocket(url, { retryCount: 0, timeout: timeoutMs, reconnect: true })({});
  const subscriber = transport.value as unknown as SubscribingTransport;
  const request: RpcRequest = (args) => transport.request(args as never) as Promise<unknown>;

  const heads = (onHead: () => void, onError: (error: unknown) => void): HeadSource => {
    let subscription: { unsubscribe: () => Promise<unknown> } | undefined;
    let closed = false;
    return {
      async ensure() {
        if (subscription || closed) return subscription !== undefined;
        try {
          subscription = await subscriber.subscribe({
            params: ["newHeads"],
            onData: () => onHead(),
            onError: (error) => {
              // A dropped subscription: polling carries on and the next `ensure` subscribes again.
              subscription = undefined;
              onError(error);
            },
          });
          if (closed) await subscription.unsubscribe().catch(() => {});
          return true;
        } catch (error) {
          onError(error);
          return false;
        }
      },
      live: () => subscription !== undefined,
      async close() {
        closed = true;
        const current = subscription;
        subscription = undefined;
        await within(current?.unsubscribe().catch(() => {}) ?? Promise.resolve(), 1_000);
        // The follower owns its network's socket (viem shares one per URL): close it so nothing keeps running.
        const client = await within(
          subscriber.getRpcClient().catch(() => undefined),
          1_000,
        );
        client?.close();
      },
    };
  };
  return { request, heads };
}
