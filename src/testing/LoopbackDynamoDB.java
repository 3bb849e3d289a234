import java.lang.reflect.Field;
import java.util.Arrays;

import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * Starts DynamoDB Local bound to 127.0.0.1 only. Its own command line has no bind-address
 * option and listens on every interface, so the Jetty connectors are re-hosted before start.
 * Arguments are passed through to DynamoDB Local (for example -inMemory -disableTelemetry -port N).
 * -port 0 binds a port the kernel picks (DynamoDB Local's own command line refuses 0): the port is
 * chosen at bind time, so no other process can take it between the choice and the bind.
 * Prints "DynamoDB Local listening on 127.0.0.1:<port>" once it accepts connections.
 */
public class LoopbackDynamoDB {
    public static void main(String[] args) throws Exception {
        String[] serverArgs = Arrays.copyOf(args, args.length);
        int portIndex = Arrays.asList(serverArgs).indexOf("-port") + 1;
        boolean kernelPicks = portIndex > 0 && portIndex < serverArgs.length && serverArgs[portIndex].equals("0");
        // Only to pass DynamoDB Local's check: the connectors are given port 0 before anything binds.
        if (kernelPicks) serverArgs[portIndex] = "8000";
        DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(serverArgs);
        Field serverField = DynamoDBProxyServer.class.getDeclaredField("server");
        serverField.setAccessible(true);
        Server jetty = (Server) serverField.get(proxy);
        ServerConnector listening = null;
        for (Connector connector : jetty.getConnectors()) {
            if (connector instanceof ServerConnector) {
                listening = (ServerConnector) connector;
                listening.setHost("127.0.0.1");
                if (kernelPicks) listening.setPort(0);
            }
        }
        if (listening == null) throw new IllegalStateException("DynamoDB Local has no network connector");
        proxy.start();
        // A launcher ended by SIGKILL cannot stop its children: end with it rather than linger.
        ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(() -> System.exit(0)));
        System.out.println("DynamoDB Local listening on 127.0.0.1:" + listening.getLocalPort());
        proxy.join();
    }
}
