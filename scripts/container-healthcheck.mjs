// The images' HEALTHCHECK: slim images have no curl, so Node asks the process's readiness
// route (PostgreSQL and Redis answer) on loopback. Exit 0 when it answers 200, else 1.
// Usage: node container-healthcheck.mjs <variable holding the port> <its default>
const [portVariable, defaultPort] = process.argv.slice(2);
const port = process.env[portVariable] || defaultPort;
try {
  const response = await fetch(`http://127.0.0.1:${port}/health/ready`, {
    signal: AbortSignal.timeout(4_000),
  });
  process.exit(response.status === 200 ? 0 : 1);
} catch {
  process.exit(1);
}
