'use strict'

const { newClusterId, log4j, mvnArgs, serverProperties } = require('../../scripts/stack/kafka')

describe('the local Kafka cluster id', () => {
  test('is 16 bytes in base64url, 22 characters', () => {
    const id = newClusterId()
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/)
    expect(Buffer.from(id, 'base64url')).toHaveLength(16)
  })

  test('never starts with "-", which the storage tool would read as an option', () => {
    // 0xf8 encodes to '-' as the first base64url character: the first draw
    // would start with '-', so the second is the one returned.
    const draws = [Buffer.alloc(16, 0xf8), Buffer.alloc(16, 0x01)]
    let calls = 0
    const id = newClusterId(() => draws[calls++])
    expect(Buffer.alloc(16, 0xf8).toString('base64url')).toMatch(/^-/)
    expect(calls).toBe(2)
    expect(id).toBe(Buffer.alloc(16, 0x01).toString('base64url'))
  })
})

test("the local broker's log rolls over at a bounded size instead of growing without end", () => {
  const props = Object.fromEntries(log4j('/x/kafka.log').trim().split('\n').map((l) => l.split('=')))
  // log4j 1.x (reload4j, what Kafka 3.9 ships) names of the appender and its settings.
  expect(props['log4j.rootLogger']).toBe('INFO, file')
  expect(props['log4j.appender.file']).toBe('org.apache.log4j.RollingFileAppender')
  expect(props['log4j.appender.file.File']).toBe('/x/kafka.log')
  expect(props['log4j.appender.file.MaxFileSize']).toBe('50MB')
  expect(props['log4j.appender.file.MaxBackupIndex']).toBe('2')
})

test('Maven fetches the jars with strict checksums and a pinned dependency plugin', () => {
  const args = mvnArgs('/x/libs')
  expect(args).toContain('-C')
  expect(args).toContainEqual(expect.stringMatching(/^org\.apache\.maven\.plugins:maven-dependency-plugin:\d+\.\d+\.\d+:copy-dependencies$/))
  expect(args).toEqual(expect.arrayContaining(['-DoutputDirectory=/x/libs', '-DincludeScope=runtime']))
})

test('the broker listens in plaintext, SASL over TLS (port + 2) and mutual TLS (port + 3), with the stack\'s certificates', () => {
  const tls = { ca: '/s/tls/ca.pem', serverKeystore: '/s/tls/server-keystore.pem' }
  const props = Object.fromEntries(serverProperties({ dir: '/s/kafka', port: 29092, tls }).split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]))
  expect(props.listeners).toBe('PLAINTEXT://127.0.0.1:29092,CONTROLLER://127.0.0.1:29093,SASL_SSL://127.0.0.1:29094,MTLS://127.0.0.1:29095')
  expect(props['advertised.listeners']).toBe('PLAINTEXT://127.0.0.1:29092,SASL_SSL://127.0.0.1:29094,MTLS://127.0.0.1:29095')
  expect(props['listener.security.protocol.map']).toBe('CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL,MTLS:SSL')
  // Brokers talk to each other in plaintext: only clients see the secured listeners.
  expect(props['inter.broker.listener.name']).toBe('PLAINTEXT')
  expect(props['listener.name.mtls.ssl.client.auth']).toBe('required')
  expect([props['ssl.keystore.location'], props['ssl.truststore.location']]).toEqual([tls.serverKeystore, tls.ca])
  expect(props['listener.name.sasl_ssl.plain.sasl.jaas.config']).toBe('org.apache.kafka.common.security.plain.PlainLoginModule required user_switchyard="switchyard";')
  expect(props['sasl.enabled.mechanisms']).toBe('PLAIN,SCRAM-SHA-256,SCRAM-SHA-512')
})
