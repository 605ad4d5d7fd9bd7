#!/usr/bin/env python3
"""A scripted JSON-RPC v2 chain node on loopback for omni's chain-forwarding tests (PyPI `websockets`).

It speaks the new JSON-RPC API a TrUAPI host forwards to: chainHead_v1_follow (with scripted follow events),
header, body, storage, call, unpin, continue, stopOperation, unfollow; chainSpec_v1_genesisHash, chainName,
properties; transaction_v1_broadcast and stop. Nothing comes from omni: the shapes are the JSON-RPC spec's
(paritytech/json-rpc-interface-spec), checked strictly, and a request that does not fit is answered -32602 and
logged as a violation.

Scripted behaviour, for the tests to rely on:
  - follow: answers "follow-<connection>-<n>", then sends initialized (finalized block H0; with the runtime when
    asked for it), newBlock H1 (parent H0), bestBlockChanged H1, finalized [H1].
  - header: H0 and H1 have headers; 0xee…ee answers error -32602 "Invalid block hash"; any other hash is null.
  - body / storage / call: {"result": "started", "operationId": …}, then the operation's events. A storage key
    0xdead answers error -32000 "storage backend failed". Call function "TestNode_limit" answers limitReached;
    "TestNode_drop" drops the whole connection without answering, the first time only.
  - chainSpec_v1_properties: a JSON object written with unusual spacing, so a relay that re-serialises shows.
  - transaction_v1_broadcast: "tx-op-<n>"; stopping tx-op-2 answers -32602 "Invalid operation id" (it finished).

Usage: chain_node_peer.py [--genesis HEX] [--events FILE]
Prints {"url": "ws://127.0.0.1:PORT", "genesis_hash": "0x…", "h0": …, "h1": …} first; then serves until stdin
closes or SIGTERM. With --events, every connection, request and violation is appended to FILE as a JSON line.
"""
import argparse
import asyncio
import json
import os
import signal
import sys

from websockets.asyncio.server import serve

H0 = '0x' + 'a0' * 32
H1 = '0x' + 'a1' * 32
BAD = '0x' + 'ee' * 32
HEADERS = {H0: '0x' + '00' * 8 + 'c0de', H1: '0x' + '11' * 8 + 'c0de'}
PROPERTIES_TEXT = '{"ss58Format": 42,  "tokenDecimals":[12] , "tokenSymbol" :"UNIT"}'
RUNTIME = {'type': 'valid', 'spec': {'specName': 'omni-test', 'implName': 'omni-test-node', 'specVersion': 1002,
                                     'implVersion': 3, 'transactionVersion': 7,
                                     'apis': {'0xdf6acb689907609b': 5, '0x37e397fc7c91f5e4': 2}}}


class Node:
    def __init__(self, genesis, events_path):
        self.genesis = genesis
        self.events_path = events_path
        self.connections = 0
        self.follows = 0
        self.operations = 0
        self.broadcasts = 0
        self.dropped = False

    def log(self, **event):
        if self.events_path:
            with open(self.events_path, 'a') as f:
                f.write(json.dumps(event) + '\n')

    async def handle(self, ws):
        self.connections += 1
        connection = self.connections
        self.log(event='open', connection=connection)
        follows = set()
        try:
            async for message in ws:
                request = json.loads(message)
                await self.answer(ws, connection, follows, request)
        except ConnectionError:
            pass
        except Exception as error:  # noqa: BLE001 - the peer logs its own failures for the test to see
            self.log(event='peer_error', connection=connection, error=repr(error))
        finally:
            self.log(event='closed', connection=connection)

    async def send(self, ws, text):
        await ws.send(text)

    async def reply(self, ws, ident, result):
        await self.send(ws, json.dumps({'jsonrpc': '2.0', 'id': ident, 'result': result}))

    async def error(self, ws, ident, code, message):
        await self.send(ws, json.dumps({'jsonrpc': '2.0', 'id': ident, 'error': {'code': code, 'message': message}}))

    async def event(self, ws, subscription, result):
        await self.send(ws, json.dumps({'jsonrpc': '2.0', 'method': 'chainHead_v1_followEvent',
                                        'params': {'subscription': subscription, 'result': result}}))

    def violation(self, connection, method, reason):
        self.log(event='violation', connection=connection, method=method, reason=reason)

    @staticmethod
    def is_hash(value):
        return isinstance(value, str) and value.startswith('0x') and len(value) == 66 and all(c in '0123456789abcdef' for c in value[2:])

    @staticmethod
    def is_hex(value):
        return isinstance(value, str) and value.startswith('0x') and len(value) % 2 == 0 and all(c in '0123456789abcdef' for c in value[2:])

    async def answer(self, ws, connection, follows, request):
        ident, method, params = request.get('id'), request.get('method'), request.get('params')
        self.log(event='request', connection=connection, method=method, params=params)
        if request.get('jsonrpc') != '2.0' or not isinstance(ident, int) or not isinstance(params, list):
            self.violation(connection, method, 'not a JSON-RPC 2.0 request with an integer id and positional params')
            return await self.error(ws, ident, -32600, 'Invalid request')

        def bad(reason):
            self.violation(connection, method, reason)
            return self.error(ws, ident, -32602, 'Invalid params: ' + reason)

        def follow_arg():
            return len(params) >= 1 and params[0] in follows

        if method == 'chainHead_v1_follow':
            if len(params) != 1 or not isinstance(params[0], bool):
                return await bad('expected [withRuntime: bool]')
            self.follows += 1
            subscription = 'follow-%d-%d' % (connection, self.follows)
            follows.add(subscription)
            await self.reply(ws, ident, subscription)
            await self.event(ws, subscription, {'event': 'initialized', 'finalizedBlockHashes': [H0],
                                                'finalizedBlockRuntime': RUNTIME if params[0] else None})
            await self.event(ws, subscription, {'event': 'newBlock', 'blockHash': H1, 'parentBlockHash': H0, 'newRuntime': None})
            await self.event(ws, subscription, {'event': 'bestBlockChanged', 'bestBlockHash': H1})
            await self.event(ws, subscription, {'event': 'finalized', 'finalizedBlockHashes': [H1], 'prunedBlockHashes': []})
            return
        if method == 'chainHead_v1_unfollow':
            if len(params) != 1 or params[0] not in follows:
                return await bad('unknown follow subscription')
            follows.discard(params[0])
            return await self.reply(ws, ident, None)
        if method == 'chainHead_v1_header':
            if len(params) != 2 or not follow_arg() or not self.is_hash(params[1]):
                return await bad('expected [followSubscription, hash]')
            if params[1] == BAD:
                return await self.error(ws, ident, -32602, 'Invalid block hash')
            return await self.reply(ws, ident, HEADERS.get(params[1]))
        if method in ('chainHead_v1_body', 'chainHead_v1_storage', 'chainHead_v1_call'):
            subscription = params[0] if params else None
            if not follow_arg() or len(params) < 2 or not self.is_hash(params[1]):
                return await bad('expected [followSubscription, hash, …]')
            if method == 'chainHead_v1_storage':
                if len(params) != 4 or not isinstance(params[2], list) or not (params[3] is None or self.is_hex(params[3])):
                    return await bad('expected [followSubscription, hash, items, childTrie]')
                types = ('value', 'hash', 'closestDescendantMerkleValue', 'descendantsValues', 'descendantsHashes')
                for item in params[2]:
                    if not isinstance(item, dict) or not self.is_hex(item.get('key')) or item.get('type') not in types:
                        return await bad('storage item %r' % (item,))
                if any(item['key'] == '0xdead' for item in params[2]):
                    return await self.error(ws, ident, -32000, 'storage backend failed')
            if method == 'chainHead_v1_call':
                if len(params) != 4 or not isinstance(params[2], str) or not self.is_hex(params[3]):
                    return await bad('expected [followSubscription, hash, function, callParameters]')
                if params[2] == 'TestNode_drop' and not self.dropped:
                    self.dropped = True
                    self.log(event='dropping', connection=connection)
                    ws.transport.abort()
                    raise ConnectionError('dropped on purpose')
                if params[2] == 'TestNode_limit':
                    return await self.reply(ws, ident, {'result': 'limitReached'})
            self.operations += 1
            operation = 'op-%d' % self.operations
            await self.reply(ws, ident, {'result': 'started', 'operationId': operation})
            if method == 'chainHead_v1_body':
                await self.event(ws, subscription, {'event': 'operationBodyDone', 'operationId': operation, 'value': ['0x0102', '0x03']})
            elif method == 'chainHead_v1_call':
                output = '0x' + bytes(reversed(bytes.fromhex(params[3][2:]))).hex()
                await self.event(ws, subscription, {'event': 'operationCallDone', 'operationId': operation, 'output': output})
            else:
                items = []
                for item in params[2]:
                    if item['type'] == 'value':
                        items.append({'key': item['key'], 'value': '0x' + 'ab' * 4})
                    elif item['type'] == 'hash':
                        items.append({'key': item['key'], 'hash': '0x' + 'cd' * 32})
                    elif item['type'] == 'closestDescendantMerkleValue':
                        items.append({'key': item['key'], 'closestDescendantMerkleValue': '0x' + 'ef' * 32})
                await self.event(ws, subscription, {'event': 'operationStorageItems', 'operationId': operation, 'items': items})
                await self.event(ws, subscription, {'event': 'operationWaitingForContinue', 'operationId': operation})
            return
        if method == 'chainHead_v1_unpin':
            if len(params) != 2 or not follow_arg() or not (self.is_hash(params[1]) or (isinstance(params[1], list) and all(map(self.is_hash, params[1])))):
                return await bad('expected [followSubscription, hash or hashes]')
            return await self.reply(ws, ident, None)
        if method in ('chainHead_v1_continue', 'chainHead_v1_stopOperation'):
            if len(params) != 2 or not follow_arg() or not isinstance(params[1], str):
                return await bad('expected [followSubscription, operationId]')
            if method == 'chainHead_v1_continue':
                subscription = params[0]
                await self.reply(ws, ident, None)
                return await self.event(ws, subscription, {'event': 'operationStorageDone', 'operationId': params[1]})
            return await self.reply(ws, ident, None)
        if method == 'chainSpec_v1_genesisHash':
            return await self.reply(ws, ident, self.genesis)
        if method == 'chainSpec_v1_chainName':
            return await self.reply(ws, ident, 'Omni Test Chain')
        if method == 'chainSpec_v1_properties':
            # Written by hand: the spacing must reach the product as it is.
            return await self.send(ws, '{"jsonrpc":"2.0","id":%d,"result": %s }' % (ident, PROPERTIES_TEXT))
        if method == 'transaction_v1_broadcast':
            if len(params) != 1 or not self.is_hex(params[0]):
                return await bad('expected [transaction]')
            self.broadcasts += 1
            return await self.reply(ws, ident, 'tx-op-%d' % self.broadcasts)
        if method == 'transaction_v1_stop':
            if len(params) != 1 or not isinstance(params[0], str):
                return await bad('expected [operationId]')
            if params[0] == 'tx-op-2':
                return await self.error(ws, ident, -32602, 'Invalid operation id')
            return await self.reply(ws, ident, None)
        return await self.error(ws, ident, -32601, 'Method not found')


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--genesis', default='0x' + '42' * 32)
    parser.add_argument('--events')
    args = parser.parse_args()
    node = Node(args.genesis.lower(), args.events)
    stop = asyncio.get_running_loop().create_future()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, lambda: stop.done() or stop.set_result(None))
    loop.add_reader(sys.stdin.fileno(), lambda: os.read(sys.stdin.fileno(), 4096) or (stop.done() or stop.set_result(None)))
    async with serve(node.handle, '127.0.0.1', 0, max_size=16 << 20) as server:
        port = server.sockets[0].getsockname()[1]
        print(json.dumps({'url': 'ws://127.0.0.1:%d' % port, 'genesis_hash': node.genesis, 'h0': H0, 'h1': H1, 'bad': BAD,
                          'properties': PROPERTIES_TEXT}), flush=True)
        await stop


if __name__ == '__main__':
    asyncio.run(main())
