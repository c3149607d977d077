import { fork } from "node:child_process";
import type { ForkServer, ServerChild } from "./electron-api";

/**
 * ForkServer over Node's child_process.fork: the server started exactly as the desktop starts it
 * (same module, arguments, environment and working folder), with Node's IPC channel standing in
 * for Electron's utility-process port. Used by the tests.
 */
export const nodeFork: ForkServer = (modulePath, args, options) => {
  const child = fork(modulePath, args, {
    env: options.env as NodeJS.ProcessEnv,
    cwd: options.cwd,
    execArgv: [...options.execArgv],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  const outputListeners: ((line: string) => void)[] = [];
  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split(/\r?\n/))
      if (line.trim()) outputListeners.forEach((l) => l(line));
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const server: ServerChild = {
    pid: child.pid,
    onMessage: (l) => child.on("message", l),
    onExit: (l) => child.on("exit", (code) => l(code)),
    onOutput: (l) => outputListeners.push(l),
    kill: () => {
      child.kill("SIGTERM");
    },
  };
  return server;
};
