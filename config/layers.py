"""The Redis pub/sub channel layer, made to come through a Redis restart (docs/faults.md).

channels_redis's ``RedisPubSubChannelLayer`` (4.3) loses pushes when Redis restarts, and tells
nobody (tests/faults/test_redis_restart.py shows both):

- Its subscriber connection reconnects and subscribes again by itself (redis-py's ``PubSub``
  does that on every connect), but whatever was published while it was away is gone: a push made
  during the outage, or before the subscriptions were back. A socket that missed a push shows the
  old state until the table's next change, and the next player waits for a turn they never see.
- Its publisher connections wait in a pool, and redis-py retries nothing by default, so the first
  ``PUBLISH`` on each after a restart fails ("Connection closed by server"): one more push lost,
  with Redis already back.

This layer retries a command once (on a fresh connection) and, each time its subscriber
connection comes back, hands every channel of this process a ``layer.reconnected`` message. The
consumers answer it by sending their socket the state read afresh from the database (and
nothing when it has not changed): every push lost while Redis was away is made good.
"""

from __future__ import annotations

import asyncio
from typing import Any

from channels_redis.pubsub import (
    RedisPubSubChannelLayer,
    RedisPubSubLoopLayer,
    RedisSingleShardConnection,
)
from channels_redis.utils import _wrap_close, decode_hosts
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

RECONNECTED = {"type": "layer.reconnected"}


class _Shard(RedisSingleShardConnection):
    """One Redis server's connections; tells the layer's channels when its subscriber
    connection is back."""

    def __init__(self, host: dict[str, Any], channel_layer: RedisPubSubLoopLayer) -> None:
        super().__init__(host, channel_layer)
        self._watched: object = None  # the subscriber connection _reconnected is registered on

    async def subscribe(self, channel: str) -> None:
        await super().subscribe(channel)
        connection = getattr(self._pubsub, "connection", None)
        if connection is not None and connection is not self._watched:
            # Registered after the first connect, so it runs on reconnects only, and after
            # PubSub.on_connect (registered first) has subscribed again.
            connection.register_connect_callback(self._reconnected)
            self._watched = connection

    def _reconnected(self, connection: object) -> None:
        layer = self.channel_layer
        message = layer.channel_layer.serialize(RECONNECTED)
        for queue in list(layer.channels.values()):
            queue.put_nowait(message)


class _LoopLayer(RedisPubSubLoopLayer):
    def __init__(self, hosts: Any = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(hosts, *args, **kwargs)
        # A pooled connection that died with the server fails its next command: one retry
        # reconnects. A PUBLISH sent twice reaches a socket twice, and the consumer drops the
        # frame it already has.
        hosts = [{"retry": Retry(NoBackoff(), 1), **host} for host in decode_hosts(hosts)]
        self._shards = [_Shard(host, self) for host in hosts]


class RedisPubSubLayer(RedisPubSubChannelLayer):
    """``RedisPubSubChannelLayer`` whose per-loop layers are the ones above."""

    def _get_layer(self) -> RedisPubSubLoopLayer:
        # Upstream's _get_layer, building _LoopLayer: it names its loop layer class directly.
        loop = asyncio.get_running_loop()
        layer = self._layers.get(loop)
        if layer is None:
            layer = _LoopLayer(*self._args, **self._kwargs, channel_layer=self)
            self._layers[loop] = layer
            _wrap_close(self, loop)
        return layer
