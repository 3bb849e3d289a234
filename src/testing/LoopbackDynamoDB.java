import java.lang.reflect.Field;

import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * Starts DynamoDB Local bound to 127.0.0.1 only. Its own command line has no bind-address
 * option and listens on every interface, so the Jetty connectors are re-hosted before start.
 * Arguments are passed through to DynamoDB Local (for example -inMemory -disableTelemetry -port N).
 */
public class LoopbackDynamoDB {
    public static void main(String[] args) throws Exception {
        DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
        Field serverField = DynamoDBProxyServer.class.getDeclaredField("server");
        serverField.setAccessible(true);
        Server jetty = (Server) serverField.get(proxy);
        for (Connector connector : jetty.getConnectors()) {
            if (connector instanceof ServerConnector) {
                ((ServerConnector) connector).setHost("127.0.0.1");
            }
        }
        proxy.start();
        // A launcher ended by SIGKILL cannot stop its children: end with it rather than linger.
        ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(() -> System.exit(0)));
        System.out.println("DynamoDB Local listening on 127.0.0.1");
        proxy.join();
    }
}
