'use strict'

/**
 * Every environment variable Switchyard reads, in one place. `.env.example`,
 * `docker-compose.yml`, the Helm chart and the README's configuration table
 * are all checked against this list by tests.
 *
 * @typedef {'string' | 'integer' | 'number' | 'boolean' | 'list' | 'enum'} VarType
 * @typedef {object} VarSpec
 * @property {VarType} type
 * @property {string | number | boolean | string[]} default
 * @property {string} description
 * @property {string[]} [values] allowed values for `enum`
 * @property {number} [min] lower bound for `integer` and `number`
 * @property {number} [max] upper bound for `integer` and `number`
 * @property {string} [pattern] a `string` must match it (a regular expression)
 * @property {string} group a heading for the README table
 */

/** @type {Record<string, VarSpec>} */
const schema = {
  NODE_ENV: { group: 'process', type: 'enum', values: ['development', 'production', 'test'], default: 'development', description: 'Runtime mode (development, production or test).' },
  LOG_LEVEL: { group: 'process', type: 'enum', values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info', description: 'pino log level.' },
  HANDLERS: { group: 'process', type: 'list', default: ['all'], description: 'Handlers this process runs (comma separated): prepare, position, fulfil, timeout, notification, or `all`.' },
  SHUTDOWN_TIMEOUT_MS: { group: 'process', type: 'integer', min: 100, default: 15000, description: 'How long graceful shutdown may take before the process exits anyway.' },

  API_HOST: { group: 'api', type: 'string', default: '127.0.0.1', description: 'Interface the api-adapter listens on (`0.0.0.0` in containers).' },
  API_PORT: { group: 'api', type: 'integer', min: 0, max: 65535, default: 3000, description: 'Port of the participant-facing FSPIOP API.' },
  API_DRAIN_MS: { group: 'api', type: 'integer', min: 0, default: 3000, description: 'On shutdown, how long the participant API keeps answering on the keep-alive connections participants hold, each answer with `Connection: close` so their pools let go, before it closes the idle rest (it stops early once none is left). Within SHUTDOWN_TIMEOUT_MS (at most a third of it).' },
  API_PRODUCE_SPACING_MS: { group: 'api', type: 'integer', min: 0, max: 1000, default: 3, description: 'Under load, the API publishes participants\' commands in produce requests at least this far apart, so that each carries more of them (less CPU per command for the API and the broker); only after a request that carried more than one HTTP request\'s command, so a lone transfer is never delayed. 0 turns it off.' },
  API_BODY_LIMIT_BYTES: { group: 'api', type: 'integer', min: 1024, default: 65536, description: 'Largest request body accepted; larger requests get a 3104 (too large payload) error, HTTP 400.' },
  HEALTH_PORT: { group: 'api', type: 'integer', min: 0, max: 65535, default: 3001, description: 'Port of `/health` for processes that run handlers without the API (each Kubernetes handler pod).' },
  ADMIN_HOST: { group: 'api', type: 'string', default: '127.0.0.1', description: 'Interface of the operator-facing admin API (keep it off public networks).' },
  ADMIN_PORT: { group: 'api', type: 'integer', min: 0, max: 65535, default: 3002, description: 'Port of the admin API (participants, accounts, limits, endpoints, funds in/out).' },
  ADMIN_TOKEN: { group: 'api', type: 'string', default: '', description: 'When set, admin requests must carry `Authorization: Bearer <token>` (surrounding whitespace, such as the newline of a token file, is ignored). The admin API refuses to start without one on an interface other than loopback, unless ADMIN_ALLOW_UNAUTHENTICATED is true.' },
  ADMIN_ALLOW_UNAUTHENTICATED: { group: 'api', type: 'boolean', default: false, description: 'Lets the admin API listen on a non-loopback ADMIN_HOST without ADMIN_TOKEN: anything that reaches it can move funds and change limits. Only for networks where something in front authenticates.' },
  HUB_NAME: { group: 'api', type: 'string', pattern: '^[A-Za-z0-9_-]{2,30}$', default: 'Hub', description: 'The hub\'s own FSPIOP name, used as `FSPIOP-Source` on messages the hub makes: 2–30 letters, digits, `_` or `-`, like every participant name (the admin API\'s `/participants/{name}` takes no other).' },

  KAFKA_BROKERS: { group: 'kafka', type: 'list', default: ['127.0.0.1:19092'], description: 'Kafka bootstrap servers. A single loopback address means the local stack runs the broker on that port.' },
  KAFKA_TLS: { group: 'kafka', type: 'boolean', default: false, description: 'Reach the brokers over TLS (security.protocol SSL, or SASL_SSL with KAFKA_SASL_MECHANISM). The broker\'s certificate and host name are always verified: against KAFKA_TLS_CA_FILE, else the public CAs Node.js trusts. A loopback broker with TLS or SASL is never started by the local stack.' },
  KAFKA_TLS_CA_FILE: { group: 'kafka', type: 'string', default: '', description: 'PEM file of the CA certificates that sign the brokers\' certificates (a private CA); empty trusts the public CAs Node.js trusts. Needs KAFKA_TLS.' },
  KAFKA_TLS_CERT_FILE: { group: 'kafka', type: 'string', default: '', description: 'PEM client certificate (chain) for brokers that authenticate clients by certificate (mutual TLS); with KAFKA_TLS_KEY_FILE. Needs KAFKA_TLS.' },
  KAFKA_TLS_KEY_FILE: { group: 'kafka', type: 'string', default: '', description: 'PEM private key (unencrypted) of KAFKA_TLS_CERT_FILE.' },
  KAFKA_SASL_MECHANISM: { group: 'kafka', type: 'enum', values: ['none', 'plain', 'scram-sha-256', 'scram-sha-512'], default: 'none', description: 'SASL authentication with the brokers: `plain` (only with KAFKA_TLS: it sends the password as it is), `scram-sha-256` or `scram-sha-512`, with KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD; `none` for brokers that do not authenticate clients by SASL.' },
  KAFKA_SASL_USERNAME: { group: 'kafka', type: 'string', default: '', description: 'SASL user name (see KAFKA_SASL_MECHANISM).' },
  KAFKA_SASL_PASSWORD: { group: 'kafka', type: 'string', default: '', description: 'SASL password (see KAFKA_SASL_MECHANISM). A secret: in Kubernetes it comes from the chart\'s Secret (`secret.KAFKA_SASL_PASSWORD`) or `secret.existingSecret`.' },
  KAFKA_CLIENT_ID: { group: 'kafka', type: 'string', default: 'switchyard', description: 'Client id prefix sent to the broker.' },
  KAFKA_TOPIC_PREFIX: { group: 'kafka', type: 'string', default: 'switchyard.', description: 'Prefix of every topic name, so several installations can share a cluster.' },
  KAFKA_PARTITIONS: { group: 'kafka', type: 'integer', min: 1, default: 1, description: 'Partitions per topic when topics are created. A topic is consumed by at most this many replicas of a handler; one replica of each (npm start, docker-compose) runs best with 1. The Helm chart creates 6.' },
  KAFKA_REPLICATION_FACTOR: { group: 'kafka', type: 'integer', min: 1, default: 1, description: 'Replication factor when topics are created (3 in production clusters).' },
  KAFKA_BATCH_MAX_BYTES: { group: 'kafka', type: 'integer', min: 1024, default: 1048576, description: 'Most bytes fetched per partition per batch.' },
  KAFKA_MAX_WAIT_MS: { group: 'kafka', type: 'integer', min: 1, default: 500, description: 'Longest a fetch waits for data when none is available; fetches return at once when data arrives. Each empty answer wakes the consumer and the broker, so a shorter wait costs an idle or lightly loaded switch CPU (docs/performance.md, thirty-sixth round); a graceful stop or a rebalance may wait as long for the fetch in flight, and an offset commit behind it on the same connection.' },
  KAFKA_MAX_BATCH_SIZE: { group: 'kafka', type: 'integer', min: 1, default: 500, description: 'Most records applied in one DB transaction; 1 forces the naive one-message-per-batch mode used as the benchmark baseline.' },
  KAFKA_LINGER_MS: { group: 'kafka', type: 'integer', min: 0, default: 8, description: 'Under a steady load, a consumer starts its transactions at least this far apart so that each carries more records (less CPU per record); only when that many milliseconds of arrivals are four or more records, so a lone transfer is not delayed by windows up to about 10 ms (docs/performance.md, thirty-seventh round). 0 turns it off; ignored when KAFKA_MAX_BATCH_SIZE is 1.' },
  KAFKA_OFFSET_COMMIT_INTERVAL_MS: { group: 'kafka', type: 'integer', min: 1, default: 200, description: 'How often consumers commit the offsets of fully processed records: one request per interval for every partition that moved, off the path to the next fetch. A graceful stop or a rebalance commits first; a crash only widens the redelivered range, which is applied once.' },
  KAFKA_PARTITIONS_CONCURRENTLY: { group: 'kafka', type: 'integer', min: 1, default: 3, description: 'Transactions one consumer runs at once. Each takes the waiting records of any of the partitions the consumer owns, up to KAFKA_MAX_BATCH_SIZE, so a replica owning many partitions still applies large batches.' },
  KAFKA_SESSION_TIMEOUT_MS: { group: 'kafka', type: 'integer', min: 6000, default: 10000, description: 'Consumer session timeout: how soon the partitions of a crashed consumer move to a live one.' },
  KAFKA_HANDLER_MAX_ATTEMPTS: { group: 'kafka', type: 'integer', min: 1, default: 5, description: 'Attempts at a message whose handler throws before it goes to the dead-letter topic.' },
  KAFKA_RETRY_BACKOFF_MS: { group: 'kafka', type: 'integer', min: 1, default: 200, description: 'Delay before the second retry of a failed batch (the first comes within 5 ms); doubles per attempt, with jitter, capped at 10 s.' },

  CALLBACK_TIMEOUT_MS: { group: 'callbacks', type: 'integer', min: 100, default: 5000, description: 'Time a participant has to answer one callback request.' },
  CALLBACK_MAX_ATTEMPTS: { group: 'callbacks', type: 'integer', min: 1, default: 15, description: 'Delivery attempts per callback before it is recorded as failed and dead-lettered. With the default backoff, 15 attempts span about 2 minutes on average (at most 4), so a participant that is down for a restart still gets its callbacks.' },
  CALLBACK_BACKOFF_MS: { group: 'callbacks', type: 'integer', min: 1, default: 250, description: 'First retry delay; doubles per attempt with full jitter.' },
  CALLBACK_MAX_BACKOFF_MS: { group: 'callbacks', type: 'integer', min: 1, default: 30000, description: 'Longest delay between two attempts.' },
  CALLBACK_RETENTION_HOURS: { group: 'callbacks', type: 'integer', min: 0, default: 168, description: 'Delivered callbacks (and failed ones, which are dead-lettered) are deleted with their attempts once they are this many hours old, by a sweep in the notification handler once a minute. Pending callbacks are never deleted. 0 keeps them all.' },
  CALLBACK_INLINE_WAIT_MS: { group: 'callbacks', type: 'integer', min: 0, default: 20, description: 'How long the notification consumer waits for a batch\'s first delivery attempts, so that their rows are written once, in their outcome; a slower attempt is written as in flight and finishes in the background. Participants that have been answering (or failing) more slowly than this, and attempts that found no free slot, are not waited for.' },
  CALLBACK_CONCURRENCY: { group: 'callbacks', type: 'integer', min: 1, default: 32, description: 'Callbacks in flight per participant; a slow participant only fills its own slots.' },
  CALLBACK_HTTP_CLIENT: { group: 'callbacks', type: 'enum', values: ['pipelined', 'undici'], default: 'pipelined', description: 'The callbacks\' HTTP client. `pipelined`: the switch\'s own HTTP/1.1 client, which writes the callbacks due to one participant\'s host in one turn together, pipelined on a keep-alive connection (up to CALLBACK_PIPELINING each); `undici`: one request per connection at a time, each written on its own.' },
  CALLBACK_PIPELINING: { group: 'callbacks', type: 'integer', min: 1, default: 16, description: 'Callback requests written on one connection before the first is answered (the `pipelined` client). An answer that does not come in time costs the connection, and the callbacks behind it are tried again; 1 turns pipelining off.' },
  CALLBACK_EARLY: { group: 'callbacks', type: 'boolean', default: true, description: 'Where the notification handler runs in the same process as the stages that emit notifications, and is its consumer group\'s only member: a notification\'s callback is tried as soon as the stage\'s transaction has committed it, instead of after its record has been produced and consumed. The record, when it arrives, takes over the attempt (no second delivery) and writes its row. Saves a produce and a fetch on the way to every callback.' },
  CALLBACK_THREAD: { group: 'callbacks', type: 'boolean', default: false, description: 'Callback requests are written and their answers read by a worker thread of their own, on another core than the event loop that runs the stages\' transactions; the dispatcher, its limits, retries and trace spans stay where they are.' },
  CALLBACK_LEASE_MS: { group: 'callbacks', type: 'integer', min: 1000, default: 60000, description: 'How long a notification replica owns a pending callback before another may take it over.' },

  TIMEOUT_INTERVAL_MS: { group: 'timeout', type: 'integer', min: 10, default: 250, description: 'How often the timeout handler looks for expired transfers.' },
  TIMEOUT_BATCH_SIZE: { group: 'timeout', type: 'integer', min: 1, default: 500, description: 'Most transfers one timeout sweep claims.' },
  TIMEOUT_LEASE_MS: { group: 'timeout', type: 'integer', min: 1000, default: 10000, description: 'After this long an unfinished expiry claim may be taken over by another replica.' },
  TIMEOUT_REDRIVE_AFTER_MS: { group: 'timeout', type: 'integer', min: 1000, default: 60000, description: 'A transfer whose commit or abort has not reached the position handler this long after its fulfil or error (its command was dead-lettered) gets the command sent again by the timeout handler, at most once per this interval; the position handler applies it once. Looked for every quarter of it.' },

  BLOOM_CAPACITY: { group: 'dedupe', type: 'integer', min: 1000, default: 1000000, description: 'Transfer ids a generation of the duplicate-check bloom filter holds; when one is full a new one starts and the last full one is still consulted (memory: two filters of this size).' },
  BLOOM_ERROR_RATE: { group: 'dedupe', type: 'number', min: 0.000000001, max: 0.5, default: 0.001, description: 'Target false-positive rate ("maybe seen" for a new id, which costs one DB lookup), from 0.000000001 to 0.5: at 0 the filter would need infinitely many hash functions, and the prepare handler ran out of memory on its first id.' },
  BLOOM_WARM_HOURS: { group: 'dedupe', type: 'integer', min: 0, default: 24, description: 'Hours of recent transfer ids loaded into the filter at start-up.' },

  TRACING_EXPORTERS: { group: 'tracing', type: 'list', default: [], description: 'Where spans go: `otlp` (any OTLP/HTTP collector or Jaeger), `file` (JSON lines for the gap report), both, or none (tracing off).' },
  TRACING_OTLP_ENDPOINT: { group: 'tracing', type: 'string', default: 'http://127.0.0.1:4318/v1/traces', description: 'OTLP/HTTP traces endpoint (Jaeger all-in-one: port 4318).' },
  TRACING_DIR: { group: 'tracing', type: 'string', default: '.stack/traces', description: 'Folder of the `file` exporter: one `<service>-<pid>.jsonl` per process (relative paths are relative to the working directory). Made with its missing parents at start; a folder that cannot be made stops the process with a message naming it.' },
  TRACING_SAMPLE_RATIO: { group: 'tracing', type: 'number', min: 0, max: 1, default: 1, description: 'Share of new traces recorded (parent-based: a transfer is traced end to end or not at all; an expiry\'s abort, started by the timeout handler, begins a trace of its own, sampled apart).' },
  TRACING_SERVICE_NAME: { group: 'tracing', type: 'string', default: 'switchyard', description: 'service.name prefix; each process appends its role (api, prepare, …).' },

  METRICS_LAG_REFRESH_MS: { group: 'metrics', type: 'integer', min: 100, default: 5000, description: 'Consumer lag on `/metrics` is read from the broker at most this often; scrapes in between get the cached value.' },

  DB_HOST: { group: 'db', type: 'string', default: '127.0.0.1', description: 'MySQL/MariaDB host. A loopback host means the local stack runs MariaDB on DB_PORT.' },
  DB_PORT: { group: 'db', type: 'integer', min: 1, max: 65535, default: 13306, description: 'MySQL/MariaDB port (the local stack never uses 3306, so it cannot collide with a system server).' },
  DB_SOCKET: { group: 'db', type: 'string', default: '', description: 'Unix socket of a MySQL/MariaDB server on this machine; when set it is used instead of DB_HOST and DB_PORT (cheaper per round trip than loopback TCP).' },
  DB_USER: { group: 'db', type: 'string', default: 'switchyard', description: 'Database user.' },
  DB_PASSWORD: { group: 'db', type: 'string', default: 'switchyard', description: 'Database password.' },
  DB_TLS: { group: 'db', type: 'boolean', default: false, description: 'Reach the database over TLS; the server\'s certificate and host name are always verified, against DB_TLS_CA_FILE, else the public CAs Node.js trusts. Not with DB_SOCKET (a Unix socket does not leave the machine).' },
  DB_TLS_CA_FILE: { group: 'db', type: 'string', default: '', description: 'PEM file of the CA certificates that sign the database server\'s certificate (a private CA, or a cloud provider\'s bundle); empty trusts the public CAs Node.js trusts. Needs DB_TLS.' },
  DB_TLS_CERT_FILE: { group: 'db', type: 'string', default: '', description: 'PEM client certificate for a server that authenticates users by certificate (`REQUIRE X509`); with DB_TLS_KEY_FILE. Needs DB_TLS.' },
  DB_TLS_KEY_FILE: { group: 'db', type: 'string', default: '', description: 'PEM private key (unencrypted) of DB_TLS_CERT_FILE.' },
  DB_NAME: { group: 'db', type: 'string', default: 'switchyard', description: 'Database (schema) name.' },
  DB_POOL_MIN: { group: 'db', type: 'integer', min: 0, default: 0, description: 'Smallest connection pool size.' },
  DB_POOL_MAX: { group: 'db', type: 'integer', min: 1, default: 10, description: 'Largest connection pool size.' },
  DB_SHARED_TRANSACTIONS: { group: 'db', type: 'integer', min: 0, default: 1, description: 'The consumers of one handler process share transactions: chunks that become ready while this many shared transactions are open wait and go together into the next one: their reads in one round trip, their writes with one COMMIT in another (fewer commits per transfer under load; a lone chunk never waits). 0 gives every consumer transaction its own commit. Off when KAFKA_MAX_BATCH_SIZE is 1.' },
  DB_SHARED_LINGER_MS: { group: 'db', type: 'integer', min: 0, default: 30, description: 'After a busy shared transaction (DB_SHARED_BUSY_RECORDS or more records), the next one takes chunks as they come, each reading and working at once with only its commit waiting, until every consumer of the last busy ones has a chunk in it or for this many milliseconds from when it opens (with DB_SHARED_LINGER_SHARE, the upper bound of its window): fewer commits and less CPU under load (docs/performance.md, twenty-second round). 0 never waits.' },
  DB_SHARED_LINGER_SHARE: { group: 'db', type: 'number', min: 0, default: 1, description: 'When above 0, the window of DB_SHARED_LINGER_MS (then its upper bound) is this share of the recent busy shared transactions\' own time (from opening to the end of the chunks they opened with, plus their COMMIT), so it follows the work it overlaps on a fast or a slow machine alike (1: as long as that work; docs/performance.md, thirteenth round). 0 keeps the fixed window.' },
  DB_PREPARED_WRITES: { group: 'db', type: 'boolean', default: false, description: 'A transaction\'s writes go as server-side prepared statements, pipelined in one round trip, and its COMMIT in one of its own once every write has succeeded (the session in autocommit 0 meanwhile, so that nothing after a deadlock commits alone). MariaDB then parses each statement once per connection instead of lexing every value. That is a third less of its CPU on the writes alone, and 4–6% less per transfer in the pipeline, for one more round trip per transaction, which cost the handler process as much on a 2-core machine (docs/performance.md, thirty-first round). For deployments whose database host runs out first. Each connection keeps up to 1,024 prepared statements; MariaDB\'s max_prepared_stmt_count (16,382 by default) bounds those of all connections together, and a connection past it writes as text. Off: writes and COMMIT go as one multi-statement query.' },
  DB_SHARED_OVERLAP_COMMIT: { group: 'db', type: 'boolean', default: false, description: 'A shared transaction whose writes and COMMIT are on their way gives its place to the next one, which takes chunks, reads and works on a second connection meanwhile; only one takes chunks at a time. Off: the next opens when the previous has committed (DB_SHARED_TRANSACTIONS at once).' },
  DB_SHARED_BUSY_RECORDS: { group: 'db', type: 'integer', min: 1, default: 8, description: 'The records that make a shared transaction busy (see DB_SHARED_LINGER_MS). A single transfer\'s stages carry one or two, so its latency never pays for the wait.' },

  STACK: { group: 'stack', type: 'enum', values: ['auto', 'off'], default: 'auto', description: '`auto` starts a local Kafka and MariaDB for loopback addresses; `off` never starts anything (docker-compose, Kubernetes).' },
  STACK_DIR: { group: 'stack', type: 'string', default: '.stack', description: 'Folder (relative to the repository) for the local stack\'s downloads, data, pid and log files.' },
  STACK_KAFKA_VERSION: { group: 'stack', type: 'string', default: '3.9.1', description: 'Apache Kafka version fetched from Maven Central for the local broker.' },
  STACK_KAFKA_HEAP: { group: 'stack', type: 'string', default: '512m', description: 'JVM heap of the local Kafka broker.' },
  STACK_DB_BUFFER_POOL: { group: 'stack', type: 'string', default: '1G', description: 'InnoDB buffer pool of the local MariaDB (a running server grows to it online). The benchmark asks for 4G, or this when it is larger.' },
  STACK_DB_REDO_LOG: { group: 'stack', type: 'string', default: '512M', description: 'InnoDB redo log of the local MariaDB (a running server grows to it online). A small log makes InnoDB flush pages in a hurry under sustained writes; the benchmark asks for 2G.' }
}

module.exports = { schema }
