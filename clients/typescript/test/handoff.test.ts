// A hand-off across two real nodes (as tests/integration/cluster_test.cc sets them up): NATS with
// JetStream and PostgreSQL started here, one zone_server hosting the plaza and one the yard
// (tests/integration/world/cluster.yaml). The player walks east into the plaza's portal; the SDK
// follows ZoneChanged{server_address, ticket} to the yard's node by itself: the game sees
// in_world -> handing_off -> in_world, never reconnecting, and its listeners stay. Over TCP, and
// over WebSocket when the server gives ZoneChanged.websocket_url (protocol 10); before that a
// WebSocket client gets the typed no_websocket_address error, which the test checks instead.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { CLUSTER_WORLD, SKIP_LIVE } from "./support/paths";
import { ZoneServer, waitFor } from "./support/server";
import { NatsServer, PostgresServer } from "./support/cluster";
import { client, closeAll, inWorld } from "./support/clients";
import { CloseReason } from "../src/node";

describe("hand-off across two nodes", { skip: SKIP_LIVE && "ZS_TS_SKIP_LIVE=1" }, () => {
  let nats: NatsServer;
  let pg: PostgresServer;
  let plaza: ZoneServer;
  let yard: ZoneServer;
  before(async () => {
    nats = await NatsServer.start();
    pg = PostgresServer.start();
    const conninfo = pg.createDatabase(`zs_ts_${process.pid}`);
    const node = (name: string, zone: string) => ZoneServer.start({
      world: CLUSTER_WORLD,
      sqlite: false,
      top: `storage: {backend: postgres, postgres: "${conninfo}", checkpoint_seconds: 1}\ncluster: {nats_url: "${nats.url}", node: ${name}, public_address: "127.0.0.1:0", zones: [${zone}], directory_ttl_seconds: 3}`,
    });
    plaza = await node("plaza-a", "plaza");
    yard = await node("yard-a", "yard");
  });
  after(async () => {
    await closeAll();
    await plaza?.stop();
    await yard?.stop();
    pg?.stop();
    nats?.stop();
  });

  for (const transport of ["tcp", "ws"] as const) {
    test(`walking east into the portal over ${transport}: the SDK follows to the yard's node`, async () => {
      const a = client({ url: plaza.url(transport), name: `Traveller${transport}` });
      const states: string[] = [];
      a.on("state", (to) => states.push(to));
      let leaves = 0;
      a.on("leave", () => leaves++);
      const zones: string[] = [];
      a.on("zoneChanged", (z) => zones.push(z.zoneName));
      await inWorld(a);
      const startedAt = Date.now();
      a.move(1, 0); // 290 m at 40 m/s: about 7.5 s
      await waitFor("the hand-off", () => zones.includes("yard"), 20000);
      const handedAt = Date.now();
      await inWorld(a, 10000);
      console.log(`[ handoff ${transport} ] walked ${((handedAt - startedAt) / 1000).toFixed(1)} s to the portal; ZoneChanged -> in the world on the yard's node: ${Date.now() - handedAt} ms`);
      assert.equal(a.welcome!.zoneName, "yard");
      assert.equal(a.store.zone!.name, "yard");
      assert.equal(a.connection.currentUrl.includes(String(transport === "ws" ? yard.wsPort : yard.port)), true);
      assert.ok(!states.includes("reconnecting"), `states: ${states.join(" -> ")}`);
      assert.equal(states.filter((s) => s === "handing_off").length, 1);
      assert.equal(a.stats.handoffs, 1);
      assert.equal(a.stats.reconnects, 0);
      await waitFor("ticks in the yard", () => a.store.tick !== null && a.stats.ticks > 0, 5000);
      // Still walking? The protocol puts you there standing still: a new move goes on.
      a.move(0, 1);
      const y0 = a.store.self!.y;
      await waitFor("walking in the yard", () => a.store.self!.y > y0 + 100, 5000);
      void leaves;
    });
  }
});
