// The Neo4j of the test passes: Neo4j 5.26 Community embedded, its Bolt connector on 127.0.0.1, native
// auth with the password given, data in the directory given. Started by scripts/real-systems/neo4j.mjs
// (compiled with javac against the jars fetched from Maven Central); prints "Neo4j ready" once Bolt
// answers with that password, and shuts the database down cleanly on SIGTERM.
//
//   java -cp <jars>:<classes> Neo4jLauncher <data dir> <bolt port> <password>
import java.nio.file.Path;
import java.util.Map;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.io.ByteUnit;

public final class Neo4jLauncher {
  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: Neo4jLauncher <data dir> <bolt port> <password>");
      System.exit(2);
    }
    Path home = Path.of(args[0]);
    int port = Integer.parseInt(args[1]);
    String password = args[2];
    DatabaseManagementService dbms =
        new DatabaseManagementServiceBuilder(home)
            .setConfig(BoltConnector.enabled, true)
            .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
            .setConfig(HttpConnector.enabled, false)
            .setConfig(HttpsConnector.enabled, false)
            .setConfig(GraphDatabaseSettings.auth_enabled, true)
            .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(256))
            .build();
    Runtime.getRuntime().addShutdownHook(new Thread(dbms::shutdown, "neo4j-shutdown"));
    // the built-in user `neo4j` starts with a password that must be changed; set the given one (a
    // restart on the same data directory finds it set already, and setting it again changes nothing)
    try {
      dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME)
          .executeTransactionally(
              "ALTER USER neo4j SET PLAINTEXT PASSWORD $password CHANGE NOT REQUIRED",
              Map.of("password", password));
    } catch (RuntimeException e) {
      // a restart on the same data: the password is set already (Neo4j may refuse the same one again)
      System.out.println("Password not changed: " + e.getMessage());
    }
    System.out.println("Neo4j ready on bolt://127.0.0.1:" + port);
    System.out.flush();
    Thread.currentThread().join();
  }
}
