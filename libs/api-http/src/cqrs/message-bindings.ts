/** A plain handler from a lib: one class per command or query, `execute` returning the use case's answer. */
export interface MessageHandler {
  execute(message: never): Promise<unknown>;
}

/** A command or query class from a lib (plain TypeScript, no framework decorator). */
export type MessageClass = abstract new (...args: never[]) => object;

/** Which bus carries a message and the handler instance the composition root built for it. */
export interface MessageBinding {
  readonly bus: 'command' | 'query';
  readonly message: MessageClass;
  readonly handler: MessageHandler;
}

export const command = (message: MessageClass, handler: MessageHandler): MessageBinding => ({ bus: 'command', message, handler });
export const query = (message: MessageClass, handler: MessageHandler): MessageBinding => ({ bus: 'query', message, handler });
