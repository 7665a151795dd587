// Types of test/worker-databases.js (plain CommonJS so jest.config.js can load it).
export declare const WORKERS: number;
export declare const FIRST_PORT: number;
export declare const FIRST_MONGO_PORT: number;
export declare const PER_WORKER_FLAG: string;
export declare function workerPostgresPort(workerId: string | number | undefined): number;
export declare function workerMongoPort(workerId: string | number | undefined): number;
export declare function workerServerPorts(): { postgres: number; mongo: number }[];
export declare function testPostgresUrl(port?: number): string;
