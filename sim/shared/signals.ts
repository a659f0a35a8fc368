// Simulators run until SIGINT/SIGTERM. Listening starts before they announce themselves, so a
// supervisor that stops one as soon as it reads the first line still gets a clean close.

/** Resolves on the first SIGINT or SIGTERM; call before printing the start-up line. */
export function stopSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
