export declare const V8_THREAD_NICE: number;
export interface ThreadInfo {
  tid: number;
  name: string;
}
export declare function threadsInStartOrder(taskDir?: string): ThreadInfo[];
export declare function poolSizeOf(args: readonly string[]): number;
export declare function v8PlatformThreads(threads: readonly ThreadInfo[], poolSize: number): number[];
export declare function lowerV8ThreadsFor(command: string | undefined): number[];
