export declare const EVERY_PROCESS_FLAGS: string[];
export declare const COMMAND_FLAGS: string[];
export declare const HOSTS: string[];
export declare function v8FlagsFor(command: string | undefined): string[];
export declare function setV8FlagsFor(command: string | undefined): void;
export declare function flagsToSet(command: string | undefined, nodeArgs: readonly string[]): string[];
export declare function nodeArgs(): string[];
