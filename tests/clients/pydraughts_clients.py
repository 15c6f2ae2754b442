"""Drives the release binary with pydraughts 0.6.7, a real Hub and DXP client
that raises on any illegal or malformed reply.

Usage: python pydraughts_clients.py <path to kondavo binary>
Prints one line per check and ends with 'clients: N passed, N failed'.
"""

import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

import draughts
from draughts.engine import Limit
from draughts.engines.dxp import DXPEngine
from draughts.engines.hub import HubEngine
from draughts.tournament import RoundRobin

BINARY = os.path.realpath(sys.argv[1])
MAX_PLIES = 160


def hub_game(variant, limit):
    """One complete game, kondavo against itself, both sides through one
    HubEngine. Returns (plies, result text)."""
    engine = HubEngine([BINARY, "hub"])
    try:
        assert "variant" in engine.options, engine.options
        engine.setoption("variant", variant)
        engine.init()
        engine.ping()
        board = draughts.Board(variant)
        while not board.is_over() and len(board.move_stack) < MAX_PLIES:
            result = engine.play(board, limit, False)
            assert result.move is not None, "engine returned no move"
            legal = [m.hub_move for m in board.legal_moves()]
            assert result.move.hub_move in legal, (result.move.hub_move, legal)
            board.push(result.move)
        info = engine.info
        assert "depth" in info and "nodes" in info and "score" in info, info
        return len(board.move_stack), board.winner()
    finally:
        engine.quit()
        engine.kill_process()


def test_hub_games():
    for variant in ["standard", "english", "italian", "russian", "brazilian", "turkish"]:
        limit = Limit(time=2, inc=0.02) if variant == "standard" else Limit(movetime=0.02)
        plies, winner = hub_game(variant, limit)
        yield f"hub game {variant}: {plies} plies, winner {winner}"


def test_ponder_and_depth():
    engine = HubEngine([BINARY, "hub"])
    try:
        engine.init()
        board = draughts.Board("standard")
        result = engine.play(board, Limit(depth=6), False)
        assert result.move is not None and result.ponder is not None
        board.push(result.move)
        # Ponder on the expected reply, then hit.
        board.push(result.ponder)
        engine.send(f'pos pos={board._game.initial_hub_fen} moves="{" ".join(m.hub_move for m in board.move_stack)}"')
        engine.send("level time=1 inc=0.1")
        engine.send("go ponder")
        engine.ponderhit()
        line = engine.recv()
        while not line.startswith("done"):
            line = engine.recv()
        assert line.startswith("done move="), line
        yield "hub depth limit and ponder-hit"
    finally:
        engine.quit()
        engine.kill_process()


def test_round_robin():
    with tempfile.TemporaryDirectory() as d:
        pdn = os.path.join(d, "rr.pdn")
        players = [([BINARY, "hub"], "hub", {"variant": "russian"}, None),
                   ([BINARY, "hub"], "hub", {"variant": "russian", "hash": "8"}, None)]
        rr = RoundRobin(pdn, players, start_time=3, increment=0.05, variant="russian",
                        games_per_pair=1, max_moves=120)
        scores = rr.play()
        assert len(scores) == 2 and sum(scores) == 2, scores
        with open(pdn) as f:
            text = f.read()
        assert "[Result" in text, text[:200]
        yield f"round robin russian: scores {scores}"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_dxp_game():
    """A game with no move limit, then one of 20 moves that kondavo ends
    with GAMEEND (a draw by the agreed limit)."""
    yield from dxp_game(max_moves=0)
    yield from dxp_game(max_moves=20)


def dxp_game(max_moves):
    port = free_port()
    server = subprocess.Popen([BINARY, "dxp", "--port", str(port), "--movetime", "0.05"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        # The probe connection above is served and closed; the game is next.
        dxp = DXPEngine(None, {"engine-opened": True, "ip": "127.0.0.1", "port": port,
                               "max-moves": max_moves}, initial_time=0)
        hub = HubEngine([BINARY, "hub"])
        hub.init()
        board = draughts.Board("standard")
        # kondavo ends a game drawn or lost by rule (repetition, the 25-move
        # rule, FMJD's endgame rule) with GAMEEND. pydraughts records it but
        # its play() keeps waiting for a move; this watcher releases it.
        done = threading.Event()

        def watch():
            while not done.wait(0.01):
                if dxp.sender.current.result is not None:
                    dxp.receiver.listening = False
                    return

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        ended_by = None
        try:
            while not board.is_over() and len(board.move_stack) < MAX_PLIES:
                if board.turn == draughts.WHITE:
                    result = dxp.play(board)
                    if result.move is None and dxp.sender.current.result is not None:
                        ended_by = f"GAMEEND reason {dxp.sender.current.result}"
                        break
                else:
                    result = hub.play(board, Limit(movetime=0.05), False)
                assert result.move is not None, "no move"
                legal = [m.hub_move for m in board.legal_moves()]
                assert result.move.hub_move in legal, (result.move.hub_move, legal)
                board.push(result.move)
        finally:
            done.set()
            dxp.quit()
            hub.quit()
            hub.kill_process()
        assert len(board.move_stack) > 10
        if max_moves:
            assert ended_by is not None and len(board.move_stack) == 2 * max_moves, (
                ended_by, len(board.move_stack))
        # The Follower outlives its client and serves the next connection.
        time.sleep(0.5)
        assert server.poll() is None, "kondavo dxp exited after its client left"
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
        server.terminate()
        server.wait(timeout=20)
        end = ended_by or f"winner {board.winner()}"
        yield f"dxp game: {len(board.move_stack)} plies, {end}"
    finally:
        if server.poll() is None:
            server.kill()


def main():
    passed = failed = 0
    for test in [test_hub_games, test_ponder_and_depth, test_round_robin, test_dxp_game]:
        try:
            for line in test():
                print(f"ok   {line}", flush=True)
                passed += 1
        except Exception:
            failed += 1
            print(f"FAIL {test.__name__}", flush=True)
            traceback.print_exc()
    print(f"clients: {passed} passed, {failed} failed", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
