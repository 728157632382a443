// The smallest page that uses the SDK: connect, log the entity count. `npm run size` bundles it
// for the browser (minified) and prints its size and gzip size.
import { connect } from "../src/index";

const client = connect({ url: "ws://127.0.0.1:7778/", name: "Tiny" });
client.on("tick", () => console.log("entities", client.entities.size));
