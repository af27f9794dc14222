'use strict'

// Whether a consumer is, right now, the only member of its group, and so
// owns every partition of its topics. Asked once per generation: after each
// join (kafkajs's GROUP_JOIN) the group is described, and the answer holds
// until the next rebalance, crash or stop. A member that joins meanwhile is
// noticed at this one's next heartbeat, which is when kafkajs reports the
// rebalance: until then the answer is stale, for at most a heartbeat interval.

/**
 * @param {import('kafkajs').Consumer} consumer
 * @param {import('pino').Logger} logger
 * @returns {{ readonly sole: boolean }}
 */
function watchSoleMember (consumer, logger) {
  let sole = false
  let generation = 0
  const lost = () => { generation++; sole = false }
  for (const event of [consumer.events.REBALANCING, consumer.events.CRASH, consumer.events.STOP]) consumer.on(event, lost)
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    lost()
    const asked = generation
    consumer.describeGroup().then((group) => {
      if (asked !== generation) return
      sole = group.members.length === 1 && group.members[0].memberId === payload.memberId
    }, (err) => logger.warn({ err }, 'could not describe the consumer group; taking this member for one of several'))
  })
  return { get sole () { return sole } }
}

module.exports = { watchSoleMember }
