# NATS for the compose `cluster` profile (docker/compose.yaml), from Debian 12's nats-server
# package (2.9, JetStream included) on the same bookworm-slim base as the zone server's image.
#
# Why not Docker Hub's nats:2.9: it is the same server, but an image registry may be out of
# reach (our CI reaches Debian's mirror only: scripts/docker-base.sh makes the base image from
# it), and this is the very package the cluster tests run (scripts/install-deps.sh).
#
#   docker build -f docker/cluster/nats.Dockerfile -t zone-nats docker/cluster
FROM debian:bookworm-slim
# The package's postinst adds the system user `nats`, which the server runs as.
RUN apt-get update \
    && apt-get install -y --no-install-recommends nats-server \
    && rm -rf /var/lib/apt/lists/* \
    && install -d -o nats -g nats -m 0750 /data
# JetStream's store (the zone directory's key-value bucket): compose mounts a volume here,
# which starts as a copy of this directory, owner included.
VOLUME /data
USER nats
EXPOSE 4222
# Exec form: nats-server is PID 1 and gets SIGTERM itself. Arguments replace CMD.
ENTRYPOINT ["/usr/sbin/nats-server"]
CMD ["-js", "-sd", "/data"]
