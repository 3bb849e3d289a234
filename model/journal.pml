/*
 * The idemkit journal protocol for one idempotency key, as a Promela model for spin.
 * docs/protocol.md explains it for readers who have never seen Promela.
 *
 * One DynamoDB item (the record) is shared by:
 *   - NLEASED leased attempts (effects: 'any'): reserve, take over, heartbeat, beginEffect, the
 *     external effect, recordEvidence, fenced completion with staged writes, release, mark
 *     UNKNOWN, and the recover hook's decision (completed / rerun / review, or it throws);
 *   - NSTAGED staged-only attempts (effects: 'staged-only'): the handler runs first, then one
 *     transaction commits its writes and the COMPLETED record if the key is free, or held by a
 *     lease that ended before any effect began;
 *   - an operator (`idemkit resolve`: completed or released);
 *   - DynamoDB TTL, which may delete a record past its expiresAt at any time;
 *   - time, which may pass at any moment: a lease ends, a record passes its expiresAt;
 *   - with HOLDS, a uniqueness claim (holdUnique) the leased attempts may hold, an item of its own
 *     shared with another key's attempt (Foreign) that wants the same value.
 *
 * Every DynamoDB call is one atomic step (a single-item conditional write, or a transaction, is
 * atomic on the server). Between any two steps an attempt may stall for any time (spin explores
 * every interleaving, with time passing meanwhile) or crash (it stops and never answers; its
 * caller's retry is another attempt).
 *
 * Time is kept as what the protocol compares: whether the lease is still live (leaseUntil >= now)
 * and whether the record is past its expiresAt. Time passing flips these at any moment, in any
 * order the code allows, which covers every jump of a real clock.
 *
 * The guards below carry the names of the journal's condition expressions
 * (src/journal/conditions.ts); model/guards.json ties each name to its expression.
 *
 * Switches, each passed with -D:
 *   CHECK_EFFECT, CHECK_FENCE, CHECK_KEEP, CHECK_UNKNOWN, CHECK_RECOVER, CHECK_STAGED, CHECK_LEASE: which
 *     properties are asserted (CHECK_ALL: all of them; CHECK_LEASE only means something with MULTI_REGION);
 *   MULTI_REGION: the journal on an MRSC global table (no TTL, a sweeper; run with NSTAGED=0);
 *   HOLDS: the leased attempts may hold the claim, pinned before their effect or completion, and
 *     another key's attempt tries to take it (run with NSTAGED=0); CHECK_HOLD asserts hold-kept;
 *   LIVENESS: record answers and define the LTL properties (with CRASHES: attempts may crash);
 *   WAIT: leased attempts use inProgress 'wait' (poll until their deadline) instead of 'reject';
 *   NOOPERATOR: no operator;
 *   the mutants MUT_COMPLETE_UNFENCED, MUT_RESERVE_UNCONDITIONAL, MUT_TAKEOVER_NO_TOKEN,
 *     MUT_DELETE_ON_REJECT, MUT_TAKEOVER_TRUSTS_READ, (with MULTI_REGION) MUT_SWEEP_IGNORES_LEASE and (with
 *     HOLDS) MUT_HOLD_TAKEOVER_IGNORES_PIN, MUT_HOLD_RETAKE_ANY_OPERATION and MUT_HOLD_EFFECT_UNPINNED, each of
 *     which must be caught.
 */

#ifndef NLEASED
#define NLEASED 3
#endif
#ifndef NSTAGED
#define NSTAGED 1
#endif
#define NATT (NLEASED + NSTAGED)
/* The engine gives up after this many lost races (MAX_RACES in the engine is 3). */
#ifndef MAXRACES
#define MAXRACES 1
#endif
/* How many records the operator resolves. */
#ifndef OPS
#define OPS 1
#endif
/* Logical operations one run can see: a new one starts when a completed record has expired. */
#ifndef GENS
#define GENS (NATT + 2)
#endif

#define OPTOKEN (NATT + 1) /* the lease token an operator's resolution writes */
#define FENCETOK (NATT + 2) /* the fresh token holdUnique writes on the record of a stale holder it fences */
#define FOREIGN (NATT + 3) /* the other key's attempt: its lease token, and its record's createdAt */

/* claimedBy of the claim: this key's record, or the other key's */
#define THISKEY 1
#define OTHERKEY 2

/* record status */
#define INP 1   /* IN_PROGRESS */
#define DONE 2  /* COMPLETED */
#define UNK 3   /* UNKNOWN */

/* answers (recorded with LIVENESS) */
#define A_NONE 0
#define A_RAN 1      /* the handler ran and its outcome was stored */
#define A_REPLAY 2   /* a stored outcome was replayed (including to a superseded attempt) */
#define A_BUSY 3     /* 409 request-in-progress */
#define A_REVIEW 4   /* 409 needs-review */
#define A_ERROR 5    /* the handler's error or 5xx, with the record released or marked UNKNOWN */
#define A_CRASH 6    /* crashed: no answer; the caller's retry is another attempt */

/* ---- the record: one DynamoDB item ---- */
bool exists;
byte status;
byte tok;       /* leaseToken: the attempt that reserved or took over, or OPTOKEN */
bool live;      /* leaseUntil >= now */
bool hasEx;     /* expiresAt is set */
bool expired;   /* now >= expiresAt */
bool outlives;  /* a heartbeat or takeover set a lease that may end after expiresAt */
bool eff;       /* effectStarted */
bool late;      /* every waiting attempt's deadline has passed */

/* ---- ghost state the properties read ---- */
byte gen;               /* the logical operation the record belongs to */
byte budget[GENS] = 1;  /* external effects still allowed, per logical operation: 1, plus 1 per rerun decided */
bool committed;         /* the staged writes of the current logical operation have committed */
#ifdef MULTI_REGION
/*
 * A lease that was still live when its record was removed by someone other than its owner: the
 * owner goes on running its handler until (real) time ends that lease, which Time does at any moment.
 */
bool orphanLive;
#endif
#ifdef HOLDS
/*
 * ---- the uniqueness claim (uniq#<name>#<value>): an item of its own, with no expiresAt ----
 * A record's createdAt names its logical operation for the claim (ownerCreatedAt); the model writes
 * it as the attempt whose reservation created the record (reservations happen once per attempt).
 */
byte crt;       /* the record's createdAt (0: no record) */
bool cex;       /* the claim item exists */
byte cown;      /* claimedBy: THISKEY or OTHERKEY */
byte ccrt;      /* ownerCreatedAt */
byte chold;     /* holdToken; 0 once permanent */
bool cpin;      /* pinned */
bool cused;     /* ghost: the operation holding the claim began its effect, or completed, under it */
#endif
#ifdef LIVENESS
byte answer[NATT + 1];
byte finished;          /* attempts that answered or crashed */
#define ANSWER(a) answer[me] = (a)
#else
#define ANSWER(a) skip
#endif

/*
 * The properties. Each is asserted only when its switch is on, so every run checks what it names;
 * the hidden (never stored) flags name the property in spin's report of a violated assertion.
 */
hidden byte single_effect = 1, fencing = 1, completed_kept = 1, unknown_never_expires = 1;
hidden byte recover_only_after_effect = 1, staged_only_no_409 = 1, lease_respected = 1, hold_kept = 1;
#if defined(CHECK_ALL) || defined(CHECK_EFFECT)
#define ASSERT_EFFECT(c) assert(single_effect && (c))
#else
#define ASSERT_EFFECT(c) skip
#endif
#if defined(CHECK_ALL) || defined(CHECK_FENCE)
#define ASSERT_FENCE(c) assert(fencing && (c))
#else
#define ASSERT_FENCE(c) skip
#endif
#if defined(CHECK_ALL) || defined(CHECK_KEEP)
#define ASSERT_KEEP(c) assert(completed_kept && (c))
#else
#define ASSERT_KEEP(c) skip
#endif
#if defined(CHECK_ALL) || defined(CHECK_UNKNOWN)
#define ASSERT_UNKNOWN(c) assert(unknown_never_expires && (c))
#else
#define ASSERT_UNKNOWN(c) skip
#endif
#if defined(CHECK_ALL) || defined(CHECK_RECOVER)
#define ASSERT_RECOVER(c) assert(recover_only_after_effect && (c))
#else
#define ASSERT_RECOVER(c) skip
#endif
/*
 * Asserted on an MRSC journal only: with DynamoDB TTL (the single-Region journal) a record whose lease
 * a heartbeat or takeover carried past its expiresAt may be deleted under that lease, which fencing
 * makes harmless for the other properties; the sweeper is idemkit's own code and promises more.
 */
#if defined(MULTI_REGION) && (defined(CHECK_ALL) || defined(CHECK_LEASE))
#define ASSERT_LEASE(c) assert(lease_respected && (c))
#else
#define ASSERT_LEASE(c) skip
#endif
#if defined(CHECK_ALL) || defined(CHECK_STAGED)
#define ASSERT_STAGED(c) assert(staged_only_no_409 && (c))
#else
#define ASSERT_STAGED(c) skip
#endif
/* hold-kept: a claim whose operation began its effect, or completed, under it is never taken by another operation */
#if defined(HOLDS) && (defined(CHECK_ALL) || defined(CHECK_HOLD))
#define ASSERT_HOLD(c) assert(hold_kept && (c))
#else
#define ASSERT_HOLD(c) skip
#endif

/*
 * ---- guards: the journal's condition expressions, by their names in src/journal/conditions.ts ----
 * A comparison with an attribute the item does not have is false in DynamoDB, so
 * `expiresAt <= :nowSeconds` is false for a record without expiresAt (PAST_EXPIRY needs hasEx).
 * model/guards.json holds the same pairs; a test compares the three.
 */
#define PAST_EXPIRY (hasEx && expired)

/* guard claimable: attribute_not_exists(#pk) OR (expiresAt <= :nowSeconds AND (#status = :completed OR (#status = :inProgress AND leaseUntil < :nowMs))) */
#define G_CLAIMABLE (!exists || (PAST_EXPIRY && (status == DONE || (status == INP && !live))))
/* guard stagedCommitClaimable: attribute_not_exists(#pk) OR (expiresAt <= :nowSeconds AND (#status = :completed OR (#status = :inProgress AND leaseUntil < :nowMs))) OR (#status = :inProgress AND leaseUntil < :nowMs AND effectStarted = :false AND fingerprint = :fingerprint) */
/* (the model has one request for its key, so the fingerprint term always holds here) */
#define G_STAGED_CLAIMABLE (G_CLAIMABLE || (exists && status == INP && !live && !eff))
/* guard takeOver: leaseToken = :old AND ((#status = :inProgress AND leaseUntil < :nowMs) OR #status = :unknown) */
#define G_TAKEOVER(old) (exists && tok == (old) && ((status == INP && !live) || status == UNK))
/* guard abandonedLease: leaseToken = :old AND #status = :inProgress AND leaseUntil < :nowMs */
#define G_ABANDONED_LEASE(old) (exists && tok == (old) && status == INP && !live)
/* guard leaseHeld: leaseToken = :mine */
#define G_LEASE_HELD(t) (exists && tok == (t))
/* guard leaseHeldNotCompleted: leaseToken = :mine AND #status <> :completed */
#define G_LEASE_HELD_NOT_COMPLETED(t) (exists && tok == (t) && status != DONE)
/* guard resolvable: #status = :unknown OR (#status = :inProgress AND leaseUntil < :nowMs) */
#define G_RESOLVABLE (exists && (status == UNK || (status == INP && !live)))
/* guard sweepable: expiresAt <= :nowSeconds AND (#status = :completed OR (#status = :inProgress AND leaseUntil < :nowMs) OR kind = :chunk) */
#define G_SWEEPABLE (exists && PAST_EXPIRY && (status == DONE || (status == INP && !live)))
/* guard holdAbandoned: leaseToken = :old AND #status = :inProgress AND leaseUntil < :nowMs AND effectStarted = :false */
#define G_HOLD_ABANDONED(old) (exists && tok == (old) && status == INP && !live && !eff)
/* Guards on the claim item (HOLDS): o is the record a holdUnique names (:owner), c its createdAt, t a token. */
/* guard uniqueHoldable: attribute_not_exists(#pk) OR (claimedBy = :owner AND ownerCreatedAt = :ownerCreatedAt AND attribute_exists(holdToken)) */
#define G_UNIQUE_HOLDABLE(o, c) (!cex || (cown == (o) && ccrt == (c) && chold != 0))
/* guard uniqueHeldBy: holdToken = :token */
#define G_UNIQUE_HELD_BY(t) (cex && chold == (t))
/* guard uniqueTakeable: holdToken = :token AND attribute_not_exists(pinned) */
#define G_UNIQUE_TAKEABLE(t) (cex && chold == (t) && !cpin)

/*
 * ---- decisions: what a record read means, by the names of src/engine/decision.ts ----
 * sst, slive and seff are the status, live lease and effect marker of the record an attempt read
 * (a reservation refused, a poll, a staged-only commit refused). model/guards.json ties each name
 * to its decision kind; a test evaluates decide() against these over every state the model has.
 */
/* decision replay: completed (the model has one request, so its fingerprint always matches) */
#define D_REPLAY (sst == DONE)
/* decision recover (a recover hook) or review (none, or a staged-only attempt): an effect may have happened */
#define D_AFTER_EFFECT (sst == UNK || (sst == INP && !slive && seff))
/* decision take-over: a lease that ended before any effect */
#define D_TAKE_OVER (sst == INP && !slive && !seff)
/* decision in-progress: a live lease */
#define D_IN_PROGRESS (sst == INP && slive)

/* ---- where a mutant drops a guard: each switch replaces one guard at the call that uses it ---- */
#ifdef MUT_RESERVE_UNCONDITIONAL
#define RESERVE_GUARD true
#else
#define RESERVE_GUARD G_CLAIMABLE
#endif
#ifdef MUT_TAKEOVER_NO_TOKEN
#define TAKEOVER_GUARD(old) (exists && ((status == INP && !live) || status == UNK))
#else
#define TAKEOVER_GUARD(old) G_TAKEOVER(old)
#endif
#ifdef MUT_SWEEP_IGNORES_LEASE
#define SWEEP_GUARD (exists && PAST_EXPIRY && status != UNK)
#else
#define SWEEP_GUARD G_SWEEPABLE
#endif
#ifdef MUT_COMPLETE_UNFENCED
#define COMPLETE_GUARD(t) (exists && status != DONE)
#else
#define COMPLETE_GUARD(t) G_LEASE_HELD_NOT_COMPLETED(t)
#endif
#ifdef MUT_HOLD_TAKEOVER_IGNORES_PIN
#define TAKEABLE_GUARD(t) (cex && chold == (t))
#else
#define TAKEABLE_GUARD(t) G_UNIQUE_TAKEABLE(t)
#endif
#ifdef MUT_HOLD_RETAKE_ANY_OPERATION
#define HOLDABLE_GUARD(o, c) (!cex || (cown == (o) && chold != 0))
#else
#define HOLDABLE_GUARD(o, c) G_UNIQUE_HOLDABLE(o, c)
#endif

/* A write that changes or removes a completed record must come after its expiresAt. */
inline keep_check() {
  if
  :: exists && status == DONE -> ASSERT_KEEP(PAST_EXPIRY)
  :: else -> skip
  fi
}

/* The record leaves (deleted or replaced). */
inline drop_record() {
  keep_check();
  if
  :: status == DONE && PAST_EXPIRY -> gen++; committed = false; assert(gen < GENS) /* an expired outcome: a new operation */
  :: else -> skip
  fi;
  exists = false; status = 0; tok = 0; live = false; hasEx = false; expired = false; outlives = false; eff = false;
#ifdef HOLDS
  crt = 0
#else
  skip
#endif
}

/*
 * The record leaves without its owner or an operator deciding it (TTL, a claim over it, a
 * foreign delete): never while an effect may have happened without an outcome.
 */
inline drop_unowned() {
  ASSERT_UNKNOWN(!(status == UNK || (eff && status != DONE)));
#ifdef MULTI_REGION
  if
  :: status == INP && live -> orphanLive = true
  :: else -> skip
  fi;
#endif
  drop_record()
}

/* Another token takes the record. */
inline hand_over(t) {
  keep_check();
  tok = (t)
}

/*
 * An owner's write lands: the record must still carry its token. Tokens are never reused (an
 * attempt reserves or takes over at most once, and never again after it lost its lease), so this
 * says that an attempt whose record was taken over, released, resolved, replaced or deleted never
 * writes again.
 */
inline fenced_lands(me) {
  ASSERT_FENCE(exists && tok == (me));
  keep_check()
}

#ifdef HOLDS
/*
 * A holdUnique writes the claim for the record o created at c (its operation), under token t: taken
 * from another operation, it must be one that never began its effect or completed under it.
 */
inline claim_taken(o, c, t) {
  if
  :: cex && (cown != (o) || ccrt != (c)) -> ASSERT_HOLD(!cused); cused = false
  :: cex && cown == (o) && ccrt == (c) -> skip      /* taken back by its own operation: still pinned if it was */
  :: !cex -> cpin = false; cused = false
  fi;
  cex = true; cown = (o); ccrt = (c); chold = (t)
}

/* The holder lets the claim go (letGoUnique): never one its operation used. */
inline claim_deleted() {
  ASSERT_HOLD(!cused);
  cex = false; cown = 0; ccrt = 0; chold = 0; cpin = false
}
#endif

/*
 * For safety a crash is a stall that never ends, which the interleavings already cover, so crash
 * points are compiled in only for the liveness runs (-DCRASHES), where a crash ends an attempt
 * without an answer.
 */
#ifdef CRASHES
#define CRASH_POINT if :: skip :: ANSWER(A_CRASH); goto finish fi
#else
#define CRASH_POINT skip
#endif

/* Where a leased attempt goes after its completion and after it let its record go, and what a claim adds to them. */
#if defined(HOLDS) && defined(MULTI_REGION)
#define AFTER_COMPLETE make_permanent
#else
#define AFTER_COMPLETE finish
#endif
#ifdef HOLDS
#define AFTER_ABANDON let_go
#define NOTE_RELEASED released = true
#else
#define AFTER_ABANDON finish
#define NOTE_RELEASED skip
#endif
/* the completion transaction makes the held claim permanent, fenced on the token: a claim taken over cancels it */
#if defined(HOLDS) && !defined(MULTI_REGION)
#define CLAIM_COMMITS (!held || G_UNIQUE_HELD_BY(me))
#else
#define CLAIM_COMMITS true
#endif

/* ---- leased attempts (effects: 'any') ---- */
proctype Leased(byte me; bool hook) {
  /* the record an earlier call returned */
  byte sst, stok;
  bool slive, seff;
  /* the attempt's scope */
  bool seffect, recovering;
  byte myGen, races;
#ifdef HOLDS
  bool held;      /* the handler holds the claim (holdUnique) */
  bool released;  /* the attempt released its record, so it lets its claim go */
  byte mycrt;     /* createdAt of the record the attempt holds: the operation it holds the claim for */
  byte sold;      /* holdToken of the claim a refused holdUnique returned */
#endif

reserve:
  CRASH_POINT;
  atomic {
    if
    :: RESERVE_GUARD ->
       if
       :: exists -> drop_unowned()
       :: else -> skip
       fi;
       /* expiresAt = leaseAwareExpiry: never before the lease ends */
       exists = true; status = INP; tok = me; live = true; hasEx = true; expired = false; outlives = false; eff = false;
       myGen = gen; sst = 0; stok = 0; slive = false; seff = false;
#ifdef HOLDS
       crt = me; mycrt = me;
#endif
#ifdef MULTI_REGION
       /* no attempt starts the handler while another attempt's lease on the key is live */
       ASSERT_LEASE(!orphanLive);
#endif
       goto handler
    :: else -> sst = status; stok = tok; slive = live && status == INP; seff = eff
    fi
  }

decide:
  CRASH_POINT;
  /* the engine compares the leaseUntil it read with its clock now: the lease may have ended since the read */
  if
  :: sst == INP && slive -> slive = false
  :: true -> skip
  fi;
  if
  :: D_REPLAY -> ANSWER(A_REPLAY); goto finish
  :: D_AFTER_EFFECT -> goto recover
  :: D_TAKE_OVER -> recovering = false; goto takeover
  :: D_IN_PROGRESS ->
#ifdef WAIT
     if
     :: !late -> goto poll
     :: true -> skip
     fi;
#endif
     goto busy
  fi;

recover:
  if
  :: hook -> recovering = true; goto takeover
  :: !hook && sst == UNK -> ANSWER(A_REVIEW); goto finish
  :: !hook && sst == INP ->
     CRASH_POINT;
     atomic {
       if
       :: G_ABANDONED_LEASE(stok) -> keep_check(); status = UNK; hasEx = false; expired = false; outlives = false; ANSWER(A_REVIEW); goto finish
       :: else -> goto raced
       fi
     }
  fi;

takeover:
  CRASH_POINT;
  atomic {
    if
    :: TAKEOVER_GUARD(stok) ->
       hand_over(me); live = true; outlives = true; status = INP;
       seffect = eff; myGen = gen; sst = 0; stok = 0; slive = false; seff = false;
#ifdef HOLDS
       mycrt = crt;
#endif
       if
       :: recovering -> goto decision
#ifndef MUT_TAKEOVER_TRUSTS_READ
       :: !recovering && eff -> recovering = true; goto found_effect   /* an effect began after the read */
#endif
       :: else -> goto handler
       fi
    :: else -> goto raced
    fi
  }

raced:
  races++;
  if
  :: races > MAXRACES -> goto busy
  :: else -> skip
  fi;
poll:
  CRASH_POINT;
  atomic {
    if
    :: G_CLAIMABLE -> goto reserve
    :: else -> sst = status; stok = tok; slive = live && status == INP; seff = eff; goto decide
    fi
  }

busy:
#ifdef MUT_DELETE_ON_REJECT
  /* Powertools 2.35's Middy onError: the rejected duplicate deletes the record it never acquired */
  atomic {
    if
    :: exists -> drop_unowned()
    :: else -> skip
    fi
  };
#endif
  ANSWER(A_BUSY);
  goto finish;

found_effect:
  /* the record taken says an effect began: it is decided like a recovery, never run as new */
  if
  :: hook -> goto decision
  :: else -> goto review
  fi;

decision:
  /* the recover hook decides on a record whose effect may have happened */
  ASSERT_RECOVER(seffect);
  CRASH_POINT;
  if
  :: budget[myGen]++; goto handler                  /* rerun */
  :: goto settle_recovered                          /* completed: store the hook's response */
  :: goto review                                    /* review; the hook throwing ends the same way (abandon marks UNKNOWN) */
  fi;

review:
  CRASH_POINT;
  atomic {                                          /* markUnknown */
    if
    :: G_LEASE_HELD(me) -> fenced_lands(me); status = UNK; hasEx = false; expired = false; live = false; outlives = false
    :: else -> skip
    fi;
    ANSWER(A_REVIEW); goto finish
  }

settle_recovered:
  CRASH_POINT;
  atomic {
    if
    :: COMPLETE_GUARD(me) -> fenced_lands(me); status = DONE; hasEx = true; expired = false; live = false; outlives = false; ANSWER(A_REPLAY); goto finish
    :: else -> goto lease_lost
    fi
  }

handler:
  /* the handler runs under this attempt's lease */
  CRASH_POINT;
#ifdef HOLDS
  /* holdUnique, as unique-holds.ts decides it; pinned from the start once the effect may have begun */
  if
  :: goto work                                      /* the handler holds no claim */
  :: skip
  fi;
  atomic {
    if
    :: HOLDABLE_GUARD(THISKEY, mycrt) -> claim_taken(THISKEY, mycrt, me); cpin = cpin || seffect; held = true; goto work
    :: else -> sold = chold; if :: sold == 0 || cpin -> goto abandon :: else -> skip fi  /* permanent or pinned */
    fi
  };
  atomic {                                          /* holderGone: the holder's record (this key's) read */
    if
    :: !exists -> goto take_hold
    :: exists && (eff || status == UNK) -> goto abandon
    :: exists && !eff && status != UNK && tok != sold -> goto take_hold
    :: exists && !eff && status != UNK && tok == sold -> skip
    fi
  };
  atomic {                                          /* fenceHolder */
    if
    :: G_HOLD_ABANDONED(sold) -> hand_over(FENCETOK)
    :: else -> goto abandon
    fi
  };
take_hold:
  atomic {                                          /* the stale hold taken over */
    if
    :: TAKEABLE_GUARD(sold) -> claim_taken(THISKEY, mycrt, me); cpin = seffect; held = true
    :: else -> goto abandon                         /* UniqueConflictError: the handler throws before any effect */
    fi
  };
work:
  sold = 0;
#endif
  if
  :: skip
  :: atomic {                                       /* heartbeat */
       if
       :: G_LEASE_HELD(me) -> fenced_lands(me); live = true; outlives = true
       :: else -> goto lease_lost
       fi
     }
  fi;
  CRASH_POINT;
  if
  :: skip                                           /* no external effect */
  ::
#if defined(HOLDS) && !defined(MUT_HOLD_EFFECT_UNPINNED)
     if
     :: held && !seffect ->
        atomic {                                    /* pinUnique, before the marker */
          if
          :: G_UNIQUE_HELD_BY(me) -> cpin = true
          :: else -> goto abandon                   /* taken over meanwhile: UniqueConflictError, no effect */
          fi
        }
     :: else -> skip
     fi;
#endif
     atomic {                                       /* beginEffect */
       if
       :: G_LEASE_HELD(me) -> fenced_lands(me); eff = true; hasEx = false; expired = false
       :: else -> goto lease_lost
       fi
     };
     if
     :: seffect = true
     :: goto abandon                                /* it landed but its answer was lost: the handler throws */
     fi;
     CRASH_POINT;
#ifdef HOLDS
     atomic {
       if                                           /* the irreversible effect */
       :: budget[myGen] > 0 -> budget[myGen]--
       :: else -> ASSERT_EFFECT(false)
       fi;
       if                                           /* while its operation holds the claim */
       :: held -> ASSERT_HOLD(cex && cown == THISKEY && ccrt == mycrt); cused = true
       :: else -> skip
       fi
     };
#else
     if                                             /* the irreversible effect */
     :: budget[myGen] > 0 -> budget[myGen]--
     :: else -> ASSERT_EFFECT(false)
     fi;
#endif
     CRASH_POINT;
     if
     :: skip
     :: atomic {                                    /* recordEvidence */
          if
          :: G_LEASE_HELD(me) -> fenced_lands(me)
          :: else -> goto lease_lost
          fi
        }
     fi
  fi;
  CRASH_POINT;
  if
  :: skip                                           /* 2xx-4xx: stored with its staged writes */
  :: goto abandon                                   /* threw, 5xx, 408, 429 */
  fi;
#if defined(HOLDS) && defined(MULTI_REGION)
  /* no transaction: the held claim is pinned before the completion (if beginEffect did not pin it) */
  if
  :: held && !seffect ->
     atomic {                                       /* pinUnique */
       if
       :: G_UNIQUE_HELD_BY(me) -> cpin = true
       :: else -> goto abandon                      /* taken over meanwhile: UniqueConflictError, nothing completed */
       fi
     }
  :: else -> skip
  fi;
#endif
  atomic {                                          /* complete */
    if
    :: COMPLETE_GUARD(me) && CLAIM_COMMITS ->
       fenced_lands(me); status = DONE; hasEx = true; expired = false; live = false; outlives = false;
       ASSERT_EFFECT(!committed); committed = true;
#ifdef HOLDS
       if
       :: held -> ASSERT_HOLD(cex && cown == THISKEY && ccrt == mycrt); cused = true;
#ifndef MULTI_REGION
          chold = 0; cpin = false                   /* made permanent in the same transaction */
#else
          skip
#endif
       :: else -> skip
       fi;
#endif
       ANSWER(A_RAN); goto AFTER_COMPLETE
    :: COMPLETE_GUARD(me) && !CLAIM_COMMITS -> goto abandon   /* the held claim was taken over: the transaction is cancelled */
    :: else -> goto lease_lost
    fi
  }
#if defined(HOLDS) && defined(MULTI_REGION)

make_permanent:
  /* REMOVE holdToken, pinned; cross-Region conflicts or the Lambda ending may cut it off, and nothing depends on it */
  if
  :: skip
  :: held ->
     atomic {
       if
       :: G_UNIQUE_HELD_BY(me) -> chold = 0; cpin = false
       :: else -> skip
       fi
     }
  fi;
  goto finish
#endif

abandon:
  CRASH_POINT;
  atomic {
    if
    :: seffect && G_LEASE_HELD(me) -> fenced_lands(me); status = UNK; hasEx = false; expired = false; live = false; outlives = false  /* markUnknown */
    :: !seffect && G_LEASE_HELD_NOT_COMPLETED(me) -> fenced_lands(me); drop_record(); NOTE_RELEASED               /* release */
    :: else -> skip                                 /* the lease was lost: the record is its new owner's */
    fi;
    ANSWER(A_ERROR); goto AFTER_ABANDON
  }
#ifdef HOLDS

let_go:
  /* letGoUnique once the record is released; a write that is lost leaves the claim stale */
  if
  :: released && held ->
     if
     :: skip
     :: atomic {
          if
          :: G_UNIQUE_HELD_BY(me) -> claim_deleted()
          :: else -> skip
          fi
        }
     fi
  :: else -> skip
  fi;
  goto finish
#endif

lease_lost:
  /* afterLeaseLost reads the record: the stored outcome, or 409 */
  ANSWER(A_REPLAY);

finish:
  atomic {
    /* nothing of a finished attempt matters any more: forgetting it merges states */
    sst = 0; stok = 0; slive = false; seff = false; seffect = false; recovering = false; myGen = 0; races = 0;
#ifdef HOLDS
    held = false; released = false; mycrt = 0; sold = 0;
#endif
#ifdef LIVENESS
    finished++
#else
    skip
#endif
  }
}

/* ---- staged-only attempts (effects: 'staged-only') ---- */
proctype Staged(byte me) {
  /* the record the refused commit returned */
  byte sst, stok;
  bool slive, seff;
  CRASH_POINT;
  if
  :: ANSWER(A_ERROR); goto finish                   /* the handler threw or returned 5xx: nothing is written */
  :: skip
  fi;
  CRASH_POINT;
  atomic {                                          /* one TransactWriteItems: staged writes + the COMPLETED record */
    if
    :: G_STAGED_CLAIMABLE ->
       if
       :: exists -> drop_unowned()
       :: else -> skip
       fi;
       exists = true; status = DONE; tok = me; live = false; hasEx = true; expired = false; outlives = false; eff = false;
#ifdef HOLDS
       crt = me;
#endif
       ASSERT_EFFECT(!committed); committed = true;
       ANSWER(A_RAN)
    :: else ->
       /* a record only a leased attempt writes is in the way, or an outcome to replay */
       ASSERT_STAGED(status == DONE || tok <= NLEASED);
       sst = status; stok = tok; slive = live && status == INP; seff = eff
    fi
  };
  if
  :: sst == 0 -> goto finish                        /* committed */
  :: else -> skip
  fi;
  /* decide() on the record found (no take-over: what a takeover could run, the commit claims) */
  if
  :: D_REPLAY -> ANSWER(A_REPLAY)
  :: D_IN_PROGRESS -> ANSWER(A_BUSY)
  :: D_AFTER_EFFECT && sst == UNK -> ANSWER(A_REVIEW)
  :: D_AFTER_EFFECT && sst == INP ->
     CRASH_POINT;
     atomic {                                       /* markAbandonedUnknown, as a leased attempt without a hook */
       if
       :: G_ABANDONED_LEASE(stok) -> keep_check(); status = UNK; hasEx = false; expired = false; outlives = false
       :: else -> skip
       fi;
       ANSWER(A_REVIEW)
     }
  fi;
finish:
  sst = 0; stok = 0; slive = false; seff = false;
#ifdef LIVENESS
  finished++
#else
  skip
#endif
}

#ifdef HOLDS
/*
 * Another key's attempt that wants the same value: one holdUnique, as unique-holds.ts decides it.
 * Taken, the claim is as good as permanent for this key (its holder refunds and completes).
 */
proctype Foreign() {
  byte fold;
  atomic {                                          /* holdUnique */
    if
    :: HOLDABLE_GUARD(OTHERKEY, FOREIGN) -> claim_taken(OTHERKEY, FOREIGN, FOREIGN); chold = 0; goto done
    :: else -> fold = chold; if :: fold == 0 || cpin -> goto done :: else -> skip fi  /* permanent or pinned */
    fi
  };
  atomic {                                          /* holderGone: the holder's record (this key's) read */
    if
    :: !exists -> goto take
    :: exists && (eff || status == UNK) -> goto done
    :: exists && !eff && status != UNK && tok != fold -> goto take
    :: exists && !eff && status != UNK && tok == fold -> skip
    fi
  };
  atomic {                                          /* fenceHolder */
    if
    :: G_HOLD_ABANDONED(fold) -> hand_over(FENCETOK)
    :: else -> goto done
    fi
  };
take:
  atomic {                                          /* the stale hold taken over */
    if
    :: TAKEABLE_GUARD(fold) -> claim_taken(OTHERKEY, FOREIGN, FOREIGN); chold = 0
    :: else -> skip
    fi
  };
done:
  fold = 0
}
#endif

/* Time passes: a lease ends, a record passes its expiresAt, waiting attempts reach their deadline. */
proctype Time() {
end:
  do
  :: atomic { exists && status == INP && live -> live = false }
  /* leaseAwareExpiry: the reservation's expiresAt is never before its lease ends */
  :: atomic { exists && hasEx && !expired && (status != INP || !live || outlives) -> expired = true }
#ifdef WAIT
  :: atomic { !late -> late = true }
#endif
#ifdef MULTI_REGION
  :: atomic { orphanLive -> orphanLive = false }    /* the removed record's lease ends */
#endif
  od
}

proctype Ttl() {
end:
  do
  :: atomic {
       exists && PAST_EXPIRY ->
       drop_unowned()
     }
  od
}

/*
 * MULTI_REGION (a journal on an MRSC global table): no TTL; the sweeper deletes, at any time, what
 * its guard allows. No staged-only attempts (refused in that mode; run with NSTAGED=0), and every
 * completion is the single-item step Leased already takes. A write refused by a cross-Region
 * conflict changes nothing and is sent again: an attempt stalling at that step, which the
 * interleavings already contain. The sweeper may find a record past its expiresAt under a live
 * lease (a heartbeat or takeover carried the lease past it): its guard must leave that record alone,
 * which lease_respected checks and MUT_SWEEP_IGNORES_LEASE drops.
 */
proctype Sweeper() {
end:
  do
  :: atomic {
       SWEEP_GUARD ->
       drop_unowned()
     }
  od
}

proctype Operator() {
  byte n;
end:
  do
  :: atomic {
       n < OPS && G_RESOLVABLE ->
       if
       :: true -> hand_over(OPTOKEN); status = DONE; hasEx = true; expired = false; live = false; outlives = false  /* resolve --completed */
       :: true ->                                                                  /* resolve --released */
          if
          :: eff -> budget[gen]++
          :: else -> skip
          fi;
          drop_record()
       fi;
       n++
     }
  od
}

/* An effect that may have happened keeps its record: no expiresAt while it is unresolved. */
active proctype Invariants() {
end:
  atomic {
    exists && (status == UNK || (eff && status != DONE)) && hasEx ->
    ASSERT_UNKNOWN(false)
  }
}

init {
  byte i;
  bool hook;
  atomic {
    if
    :: hook = true
    :: hook = false
    fi;
    run Time();
#ifdef MULTI_REGION
    run Sweeper();
#else
    run Ttl();
#endif
#ifndef NOOPERATOR
    run Operator();
#endif
#ifdef HOLDS
    run Foreign();
#endif
    i = 1;
    do
    :: i <= NLEASED -> run Leased(i, hook); i++
    :: i > NLEASED && i <= NATT -> run Staged(i); i++
    :: else -> break
    od;
    i = 0; hook = false
  }
}

#ifdef LIVENESS
/* Every attempt answers (or crashes: its caller's retry is another attempt). */
ltl answered { <> (finished == NATT) }
/* Not a property: an UNKNOWN record stays UNKNOWN until an operator or a recover hook acts on it. */
ltl resolved { [] (status == UNK -> <> (status != UNK)) }
#endif
