'use strict'

const { newClusterId, log4j, mvnArgs } = require('../../scripts/stack/kafka')

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
